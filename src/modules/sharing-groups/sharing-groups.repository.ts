import type { Sql } from "../../platform/db/transaction.ts";
import type { SharingGroupDraft } from "../events/index.ts";

/** A known group an imported copy names, with whether the importer's organisation owns or belongs to it. */
export interface KnownGroupRow {
  id: number;
  uuid: string;
  local: boolean;
  member: boolean;
}

/** The fields a copy changed, before and after (only those that differ). */
export type FieldChanges = Record<string, { before: unknown; after: unknown }>;

interface UpdatedRow {
  old_name: string;
  old_releasability: string;
  old_description: string;
  old_roaming: boolean;
  name: string;
  releasability: string;
  description: string;
  roaming: boolean;
}

/**
 * The SQL of capturing sharing groups from imported MISP copies (SharingGroupsService.captureImported),
 * run on the import's transaction client. Authorization is the service's.
 */
export class SharingGroupsRepository {
  constructor(private readonly sql: Sql) {}

  async knownByUuid(uuids: readonly string[], orgId: number | null): Promise<KnownGroupRow[]> {
    const { rows } = await this.sql.query<KnownGroupRow>(
      `SELECT sg.id, sg.uuid::text, sg.local,
              (sg.org_id = $2 OR EXISTS (SELECT 1 FROM sharing_group_orgs m WHERE m.sharing_group_id = sg.id AND m.org_id = $2)) AS member
         FROM sharing_groups sg WHERE sg.uuid = ANY($1::uuid[])`,
      [uuids, orgId],
    );
    return rows;
  }

  /**
   * MISP's captureSGExisting: the group's fields the copy gives, when the copy is newer (the test and
   * the write in one statement, so two imports of copies race safely). Null when it is not newer;
   * otherwise the fields that changed.
   */
  async updateFromCopy(id: number, d: SharingGroupDraft): Promise<FieldChanges | null> {
    const { rows } = await this.sql.query<UpdatedRow>(
      `UPDATE sharing_groups sg
          SET name = CASE WHEN EXISTS (SELECT 1 FROM sharing_groups o WHERE o.name = $2::text AND o.id <> sg.id) THEN $2::text || ' (' || sg.uuid::text || ')' ELSE $2::text END,
              releasability = COALESCE($3, sg.releasability), description = COALESCE($4, sg.description), roaming = COALESCE($5, sg.roaming),
              created_at = COALESCE($6, sg.created_at), updated_at = COALESCE($7, now())
         FROM (SELECT id, name, releasability, description, roaming FROM sharing_groups WHERE id = $1 FOR UPDATE) old
        WHERE sg.id = old.id AND ($7::timestamptz IS NULL OR $7::timestamptz > sg.updated_at)
        RETURNING old.name AS old_name, old.releasability AS old_releasability, old.description AS old_description, old.roaming AS old_roaming,
                  sg.name, sg.releasability, sg.description, sg.roaming`,
      [id, d.name, d.releasability, d.description, d.roaming, d.created, d.modified],
    );
    const r = rows[0];
    if (!r) return null;
    const changes: FieldChanges = {};
    for (const k of ["name", "releasability", "description", "roaming"] as const) {
      const before = r[`old_${k}`];
      if (before !== r[k]) changes[k] = { before, after: r[k] };
    }
    return changes;
  }

  /** MISP's captureSGNew: the group as the copy gives it (null when another import created it meanwhile). */
  async insertFromCopy(d: SharingGroupDraft, ownerId: number): Promise<{ id: number; name: string } | null> {
    // Names are unique here; a different group of the same name elsewhere keeps its name with the uuid beside it.
    // Both unique indexes arbitrate: with the uuid's alone, a concurrent import of the same group failed on
    // the name's index instead of waiting for it. When the name was taken meanwhile by another group, a
    // second try sees that name and takes the suffixed one.
    for (let attempt = 0; attempt < 2; attempt++) {
      const { rows } = await this.sql.query<{ id: number; name: string }>(
        `INSERT INTO sharing_groups (uuid, name, releasability, description, org_id, local, roaming, created_at, updated_at)
         VALUES ($1::uuid, CASE WHEN EXISTS (SELECT 1 FROM sharing_groups WHERE name = $2::text) THEN $2::text || ' (' || $1::text || ')' ELSE $2::text END, $3, $4, $5, false, $6,
                 COALESCE($7, now()), COALESCE($8, now()))
         ON CONFLICT DO NOTHING RETURNING id, name`,
        // MISP's captureSGNew keeps the copy's created and modified: the next copy is newer only if changed since.
        [d.uuid, d.name, d.releasability ?? "", d.description ?? "", ownerId, d.roaming ?? false, d.created, d.modified],
      );
      if (rows[0] || (await this.idOf(d.uuid)) !== null) return rows[0] ?? null;
    }
    return null;
  }

  async idOf(uuid: string): Promise<number | null> {
    const { rows } = await this.sql.query<{ id: number }>("SELECT id FROM sharing_groups WHERE uuid = $1", [uuid]);
    return rows[0]?.id ?? null;
  }

  /**
   * Adds these members, or sets their extend flag (`overwrite`) or keeps an existing member's (not
   * `overwrite`). Answers the members inserted or whose flag changed.
   */
  async putMembers(id: number, members: ReadonlyMap<number, boolean>, overwrite: boolean): Promise<{ org_id: number; extend: boolean }[]> {
    if (members.size === 0) return [];
    const { rows } = await this.sql.query<{ org_id: number; extend: boolean }>(
      `INSERT INTO sharing_group_orgs (sharing_group_id, org_id, extend)
       SELECT $1, o, e FROM unnest($2::int[], $3::bool[]) AS x(o, e)
       ON CONFLICT (sharing_group_id, org_id) DO ${overwrite ? "UPDATE SET extend = EXCLUDED.extend WHERE sharing_group_orgs.extend IS DISTINCT FROM EXCLUDED.extend" : "NOTHING"}
       RETURNING org_id, extend`,
      [id, [...members.keys()], [...members.values()]],
    );
    return rows;
  }
}
