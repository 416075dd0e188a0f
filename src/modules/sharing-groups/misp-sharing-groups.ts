import { hasScope, isAdmin, type Principal } from "../../auth/principal.ts";
import type { Sql } from "../../platform/db/transaction.ts";
import type { OrgDraft, SharingGroupDraft } from "../events/index.ts";

/**
 * The local sharing groups of an imported file's SharingGroup blocks, by uuid (the sender's numbers
 * mean nothing here), as MISP's sync captures them (SharingGroup::captureSG):
 * - a known group is used when the importer's organisation owns or belongs to it, or the importer
 *   syncs (`events:sync`) or administers; otherwise the data keeps distribution 4 without a group;
 * - a known group is updated from the block when the block is newer (its `modified` later than the
 *   group's last change, or no `modified`) and the importer syncs and the group came by sync (not
 *   `local`), or administers: name, releasability, description, roaming, created and modified as
 *   given, and the member organisations it lists added (or their extend flag changed; none removed,
 *   the owner kept). MISP's code also names the owner, but its test reads a key that is never set:
 *   an owner importing without sync changes nothing, as in MISP;
 * - an unknown group is created only for an importer who syncs, with its owner and members found or
 *   created by `organisation`.
 */
export async function resolveImportedSharingGroups(
  sql: Sql,
  actor: Principal,
  drafts: readonly SharingGroupDraft[],
  opts: { organisation: (org: OrgDraft) => Promise<number> },
): Promise<Map<string, number | null>> {
  const byUuid = new Map(drafts.map((d) => [d.uuid, d]));
  const resolved = new Map<string, number | null>();
  if (byUuid.size === 0) return resolved;
  const sync = hasScope(actor, "events:sync");
  const admin = isAdmin(actor);
  const { rows } = await sql.query<{ id: number; uuid: string; local: boolean; member: boolean }>(
    `SELECT sg.id, sg.uuid::text, sg.local,
            (sg.org_id = $2 OR EXISTS (SELECT 1 FROM sharing_group_orgs m WHERE m.sharing_group_id = sg.id AND m.org_id = $2)) AS member
       FROM sharing_groups sg WHERE sg.uuid = ANY($1::uuid[])`,
    [[...byUuid.keys()], actor.orgId],
  );
  for (const r of rows) {
    if (!(admin || sync || r.member)) {
      resolved.set(r.uuid, null);
      continue;
    }
    resolved.set(r.uuid, r.id);
    if (admin || (sync && !r.local)) await updateFromCopy(sql, r.id, byUuid.get(r.uuid)!, opts.organisation);
  }
  for (const [uuid, draft] of byUuid) {
    if (resolved.has(uuid)) continue;
    resolved.set(uuid, sync ? await createImported(sql, actor, draft, opts.organisation) : null);
  }
  return resolved;
}

/**
 * MISP's captureSGExisting and captureSGOrgs: the group's fields the copy gives, when the copy is
 * newer (the test and the write in one statement, so two imports of copies race safely), then its
 * member organisations added or their extend flag set.
 */
async function updateFromCopy(sql: Sql, id: number, d: SharingGroupDraft, organisation: (org: OrgDraft) => Promise<number>): Promise<void> {
  const updated = await sql.query(
    `UPDATE sharing_groups sg
        SET name = CASE WHEN EXISTS (SELECT 1 FROM sharing_groups o WHERE o.name = $2::text AND o.id <> sg.id) THEN $2::text || ' (' || sg.uuid::text || ')' ELSE $2::text END,
            releasability = COALESCE($3, sg.releasability), description = COALESCE($4, sg.description), roaming = COALESCE($5, sg.roaming),
            created_at = COALESCE($6, sg.created_at), updated_at = COALESCE($7, now())
      WHERE sg.id = $1 AND ($7::timestamptz IS NULL OR $7::timestamptz > sg.updated_at)`,
    [id, d.name, d.releasability, d.description, d.roaming, d.created, d.modified],
  );
  if (!updated.rowCount) return;
  const members = new Map<number, boolean>();
  for (const m of d.members) members.set(await organisation(m), m.extend);
  if (members.size === 0) return;
  await sql.query(
    `INSERT INTO sharing_group_orgs (sharing_group_id, org_id, extend)
     SELECT $1, o, e FROM unnest($2::int[], $3::bool[]) AS x(o, e)
     ON CONFLICT (sharing_group_id, org_id) DO UPDATE SET extend = EXCLUDED.extend`,
    [id, [...members.keys()], [...members.values()]],
  );
}

async function createImported(sql: Sql, actor: Principal, d: SharingGroupDraft, organisation: (org: OrgDraft) => Promise<number>): Promise<number | null> {
  const ownerId = d.owner ? await organisation(d.owner) : actor.orgId;
  if (ownerId === null) return null;
  // Names are unique here; a different group of the same name elsewhere keeps its name with the uuid beside it.
  const inserted = await sql.query<{ id: number }>(
    `INSERT INTO sharing_groups (uuid, name, releasability, description, org_id, local, roaming, created_at, updated_at)
     VALUES ($1::uuid, CASE WHEN EXISTS (SELECT 1 FROM sharing_groups WHERE name = $2::text) THEN $2::text || ' (' || $1::text || ')' ELSE $2::text END, $3, $4, $5, false, $6,
             COALESCE($7, now()), COALESCE($8, now()))
     ON CONFLICT (uuid) DO NOTHING RETURNING id`,
    // MISP's captureSGNew keeps the copy's created and modified: the next copy is newer only if changed since.
    [d.uuid, d.name, d.releasability ?? "", d.description ?? "", ownerId, d.roaming ?? false, d.created, d.modified],
  );
  const id = inserted.rows[0]?.id ?? (await sql.query<{ id: number }>("SELECT id FROM sharing_groups WHERE uuid = $1", [d.uuid])).rows[0]?.id;
  if (id === undefined) return null;
  const members = new Map<number, boolean>([[ownerId, true]]);
  for (const m of d.members) {
    const orgId = await organisation(m);
    if (!members.has(orgId)) members.set(orgId, m.extend);
  }
  await sql.query(
    `INSERT INTO sharing_group_orgs (sharing_group_id, org_id, extend) SELECT $1, o, e FROM unnest($2::int[], $3::bool[]) AS x(o, e) ON CONFLICT DO NOTHING`,
    [id, [...members.keys()], [...members.values()]],
  );
  return id;
}

/**
 * The SharingGroup blocks of a MISP export, by local id: the group, its owner and members, as MISP
 * writes them. An empty SharingGroupServer is no server restriction to MISP (checkIfServerInSG), so
 * a group that is not roaming lists this instance alone (server_id 0 with the Server block MISP
 * sends for itself): a receiving MISP keeps it bound to the instance it came from.
 */
export async function mispSharingGroupBlocks(sql: Sql, ids: readonly number[], instanceUrl: string): Promise<Map<number, Record<string, unknown>>> {
  const blocks = new Map<number, Record<string, unknown>>();
  if (ids.length === 0) return blocks;
  const { rows } = await sql.query<{
    id: number;
    uuid: string;
    name: string;
    releasability: string;
    description: string;
    active: boolean;
    local: boolean;
    roaming: boolean;
    org_id: number;
    org_uuid: string;
    org_name: string;
    created: string;
    modified: string;
    members: { org_id: number; extend: boolean; uuid: string; name: string }[];
  }>(
    `SELECT sg.id, sg.uuid::text, sg.name, sg.releasability, sg.description, sg.active, sg.local, sg.roaming, sg.org_id, o.uuid::text AS org_uuid, o.name AS org_name,
            to_char(sg.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS created, to_char(sg.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS modified,
            COALESCE((SELECT json_agg(json_build_object('org_id', m.org_id, 'extend', m.extend, 'uuid', mo.uuid, 'name', mo.name) ORDER BY m.org_id)
                        FROM sharing_group_orgs m JOIN organisations mo ON mo.id = m.org_id WHERE m.sharing_group_id = sg.id), '[]') AS members
       FROM sharing_groups sg JOIN organisations o ON o.id = sg.org_id WHERE sg.id = ANY($1::int[])`,
    [[...new Set(ids)]],
  );
  for (const g of rows) {
    blocks.set(g.id, {
      id: String(g.id),
      uuid: g.uuid,
      name: g.name,
      releasability: g.releasability,
      description: g.description,
      organisation_uuid: g.org_uuid,
      org_id: String(g.org_id),
      active: g.active,
      local: g.local,
      roaming: g.roaming,
      // MISP's datetime columns (UTC): a receiving MISP updates its copy of the group only from a newer one.
      created: g.created,
      modified: g.modified,
      Organisation: { id: String(g.org_id), uuid: g.org_uuid, name: g.org_name },
      SharingGroupOrg: g.members.map((m) => ({ sharing_group_id: String(g.id), org_id: String(m.org_id), extend: m.extend, Organisation: { id: String(m.org_id), uuid: m.uuid, name: m.name } })),
      SharingGroupServer: g.roaming ? [] : [{ sharing_group_id: String(g.id), server_id: "0", all_orgs: false, Server: { id: "0", url: instanceUrl, name: instanceUrl } }],
    });
  }
  return blocks;
}
