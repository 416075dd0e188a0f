import { isAdmin, type Principal } from "../../auth/principal.ts";
import type { Sql } from "../../platform/db/transaction.ts";
import type { OrgDraft, SharingGroupDraft } from "../events/index.ts";

/**
 * The local sharing groups of an imported file's SharingGroup blocks, by uuid (the sender's numbers
 * mean nothing here). A known group is used when the importer's organisation owns or belongs to it
 * (administrators: any); an unknown one is created only for a caller who syncs (`create`), with its
 * owner and members found or created by `organisation`, as MISP's sync does. Otherwise the data
 * keeps distribution 4 without a group: its owners' only. A known group keeps its fields, roaming
 * included: a sender does not widen a group here.
 */
export async function resolveImportedSharingGroups(
  sql: Sql,
  actor: Principal,
  drafts: readonly SharingGroupDraft[],
  opts: { create: boolean; organisation: (org: OrgDraft) => Promise<number> },
): Promise<Map<string, number | null>> {
  const byUuid = new Map(drafts.map((d) => [d.uuid, d]));
  const resolved = new Map<string, number | null>();
  if (byUuid.size === 0) return resolved;
  const { rows } = await sql.query<{ id: number; uuid: string; usable: boolean }>(
    `SELECT sg.id, sg.uuid::text,
            ($2 OR sg.org_id = $3 OR EXISTS (SELECT 1 FROM sharing_group_orgs m WHERE m.sharing_group_id = sg.id AND m.org_id = $3)) AS usable
       FROM sharing_groups sg WHERE sg.uuid = ANY($1::uuid[])`,
    [[...byUuid.keys()], isAdmin(actor), actor.orgId],
  );
  for (const r of rows) resolved.set(r.uuid, r.usable ? r.id : null);
  for (const [uuid, draft] of byUuid) {
    if (resolved.has(uuid)) continue;
    resolved.set(uuid, opts.create ? await createImported(sql, actor, draft, opts.organisation) : null);
  }
  return resolved;
}

async function createImported(sql: Sql, actor: Principal, d: SharingGroupDraft, organisation: (org: OrgDraft) => Promise<number>): Promise<number | null> {
  const ownerId = d.owner ? await organisation(d.owner) : actor.orgId;
  if (ownerId === null) return null;
  // Names are unique here; a different group of the same name elsewhere keeps its name with the uuid beside it.
  const inserted = await sql.query<{ id: number }>(
    `INSERT INTO sharing_groups (uuid, name, releasability, description, org_id, local, roaming)
     VALUES ($1::uuid, CASE WHEN EXISTS (SELECT 1 FROM sharing_groups WHERE name = $2::text) THEN $2::text || ' (' || $1::text || ')' ELSE $2::text END, $3, $4, $5, false, $6)
     ON CONFLICT (uuid) DO NOTHING RETURNING id`,
    [d.uuid, d.name, d.releasability, d.description, ownerId, d.roaming],
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
    members: { org_id: number; extend: boolean; uuid: string; name: string }[];
  }>(
    `SELECT sg.id, sg.uuid::text, sg.name, sg.releasability, sg.description, sg.active, sg.local, sg.roaming, sg.org_id, o.uuid::text AS org_uuid, o.name AS org_name,
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
      Organisation: { id: String(g.org_id), uuid: g.org_uuid, name: g.org_name },
      SharingGroupOrg: g.members.map((m) => ({ sharing_group_id: String(g.id), org_id: String(m.org_id), extend: m.extend, Organisation: { id: String(m.org_id), uuid: m.uuid, name: m.name } })),
      SharingGroupServer: g.roaming ? [] : [{ sharing_group_id: String(g.id), server_id: "0", all_orgs: false, Server: { id: "0", url: instanceUrl, name: instanceUrl } }],
    });
  }
  return blocks;
}
