import type { Sql } from "../../platform/db/transaction.ts";

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
