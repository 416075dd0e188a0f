import type { Prisma, PrismaClient, Server } from "../../generated/prisma/client.ts";
import type { Sql } from "../../platform/db/transaction.ts";

/** The queries of the servers area: the records through Prisma, the pull cursor and the events a push reads. */
export type ServerRow = Server;

export interface ServerFields {
  name: string;
  url: string;
  authkeyCipher: string;
  orgId: number;
  pullEnabled: boolean;
  pushEnabled: boolean;
  internal: boolean;
  pullRules: Prisma.InputJsonValue;
  pushRules: Prisma.InputJsonValue;
}

export class ServersRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly sql: Sql,
  ) {}

  list(where: Prisma.ServerWhereInput, skip: number, take: number): Promise<ServerRow[]> {
    return this.prisma.server.findMany({ where, orderBy: { id: "asc" }, skip, take });
  }

  count(where: Prisma.ServerWhereInput): Promise<number> {
    return this.prisma.server.count({ where });
  }

  find(id: number): Promise<ServerRow | null> {
    return this.prisma.server.findUnique({ where: { id } });
  }

  insert(fields: ServerFields, createdBy: number | null): Promise<ServerRow> {
    return this.prisma.server.create({ data: { ...fields, createdBy } });
  }

  update(id: number, fields: ServerFields): Promise<ServerRow> {
    return this.prisma.server.update({ where: { id }, data: { ...fields, updatedAt: new Date() } });
  }

  /** The server and the schedules that pull from it. */
  async delete(id: number, taskNames: string[]): Promise<void> {
    await this.prisma.$transaction([
      this.prisma.$executeRaw`DELETE FROM scheduled_tasks WHERE task = ANY(${taskNames}) AND kwargs->>'server_id' = ${String(id)}`,
      this.prisma.server.delete({ where: { id } }),
    ]);
  }

  /** Moves the cursor forward only: a committed event's timestamp, never back. */
  async advanceCursor(id: number, timestamp: number): Promise<void> {
    await this.sql.query("UPDATE servers SET pull_cursor = GREATEST(pull_cursor, $2) WHERE id = $1", [id, timestamp]);
  }

  async resetCursor(id: number): Promise<void> {
    await this.sql.query("UPDATE servers SET pull_cursor = 0 WHERE id = $1", [id]);
  }

  async organisationExists(id: number): Promise<boolean> {
    return (await this.prisma.organisation.count({ where: { id } })) > 0;
  }

  async markPulled(id: number): Promise<void> {
    await this.sql.query("UPDATE servers SET last_pulled_at = now() WHERE id = $1", [id]);
  }

  async markPushed(id: number): Promise<void> {
    await this.sql.query("UPDATE servers SET last_pushed_at = now() WHERE id = $1", [id]);
  }

  /** The stored timestamps of these events (any owner's), by uuid. */
  async localTimestamps(uuids: string[]): Promise<Map<string, { timestamp: number; orgId: number }>> {
    const { rows } = await this.sql.query<{ uuid: string; timestamp: string; org_id: number }>(
      "SELECT uuid::text, timestamp, org_id FROM events WHERE uuid = ANY($1::uuid[])",
      [uuids],
    );
    return new Map(rows.map((r) => [r.uuid, { timestamp: Number(r.timestamp), orgId: r.org_id }]));
  }

  /** The organisation's events a push may consider (not deleted, not "your organisation only"), oldest change first. */
  async pushCandidates(orgId: number): Promise<string[]> {
    const { rows } = await this.sql.query<{ uuid: string }>(
      "SELECT uuid::text FROM events WHERE org_id = $1 AND deleted = false AND distribution <> 0 ORDER BY timestamp, id",
      [orgId],
    );
    return rows.map((r) => r.uuid);
  }
}
