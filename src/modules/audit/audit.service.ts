import type { Prisma, PrismaClient } from "../../platform/db/index.ts";
import { authorize, type Principal } from "../../auth/principal.ts";
import type { Sql } from "../../platform/db/transaction.ts";
import { likeLiteral } from "../../platform/db/like.ts";
import { offsetOf, pageOf, type Page, type PageRequest } from "../../platform/pagination.ts";

export interface AuditEntry {
  action: string;
  resourceType?: string | null;
  resourceId?: number | null;
  metadata?: Record<string, unknown> | null;
}

type Tx = Pick<PrismaClient, "auditLog">;

/**
 * Writes audit entries. Callers pass their transaction client so the entry commits (or rolls back)
 * with the change it describes. Metadata must never carry secrets: callers pass names and ids only.
 */
export class AuditService {
  constructor(private readonly prisma: PrismaClient) {}

  record(actor: Principal | null, entry: AuditEntry, tx: Tx = this.prisma): Promise<unknown> {
    return tx.auditLog.create({
      data: {
        actorType: actor?.actorType ?? "system",
        actorUserId: actor?.userId ?? null,
        actorCredentialId: actor?.credentialId ?? null,
        resourceType: entry.resourceType ?? null,
        resourceId: entry.resourceId ?? null,
        action: entry.action,
        ipAddress: actor?.ip ?? null,
        userAgent: actor?.userAgent?.slice(0, 512) ?? null,
        metadata: (entry.metadata ?? undefined) as Prisma.InputJsonValue | undefined,
      },
    });
  }

  /**
   * Several entries in one statement on a PostgreSQL client: a writer whose transaction is a pg
   * client (the MISP import's) records with it, so the entries commit or roll back with its change.
   */
  async recordAll(actor: Principal | null, entries: readonly AuditEntry[], sql: Sql): Promise<void> {
    if (entries.length === 0) return;
    await sql.query(
      `INSERT INTO audit_logs (actor_type, actor_user_id, actor_credential_id, ip_address, user_agent, resource_type, resource_id, action, metadata)
       SELECT $1, $2, $3, $4, $5, x.resource_type, x.resource_id, x.action, x.metadata
         FROM unnest($6::text[], $7::int[], $8::text[], $9::jsonb[]) AS x(resource_type, resource_id, action, metadata)`,
      [
        actor?.actorType ?? "system",
        actor?.userId ?? null,
        actor?.credentialId ?? null,
        actor?.ip ?? null,
        actor?.userAgent?.slice(0, 512) ?? null,
        entries.map((e) => e.resourceType ?? null),
        entries.map((e) => e.resourceId ?? null),
        entries.map((e) => e.action),
        entries.map((e) => (e.metadata ? JSON.stringify(e.metadata) : null)),
      ],
    );
  }

  /** The audit log for administrators, newest first. `action` matches as a case-insensitive prefix. */
  async list(p: Principal | null, filter: AuditFilter, req: PageRequest): Promise<Page<AuditRecord>> {
    authorize(p, "audit_logs:admin");
    const where: Prisma.AuditLogWhereInput = {
      ...(filter.action ? { action: { startsWith: likeLiteral(filter.action), mode: "insensitive" } } : {}),
      ...(filter.actorUserId !== undefined ? { actorUserId: filter.actorUserId } : {}),
      ...(filter.actorType ? { actorType: filter.actorType } : {}),
      ...(filter.resourceType ? { resourceType: filter.resourceType } : {}),
      ...(filter.resourceId !== undefined ? { resourceId: filter.resourceId } : {}),
      ...(filter.dateFrom || filter.dateTo ? { createdAt: { gte: filter.dateFrom, lte: filter.dateTo } } : {}),
    };
    const [rows, total] = await Promise.all([
      this.prisma.auditLog.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], skip: offsetOf(req), take: req.size }),
      this.prisma.auditLog.count({ where }),
    ]);
    const ids = [...new Set(rows.map((r) => r.actorUserId).filter((id): id is number => id !== null))];
    const users = ids.length ? await this.prisma.user.findMany({ where: { id: { in: ids } }, select: { id: true, email: true } }) : [];
    const emails = new Map(users.map((u) => [u.id, u.email]));
    return pageOf(rows.map((r) => ({ ...r, actorEmail: r.actorUserId === null ? null : (emails.get(r.actorUserId) ?? null) })), total, req);
  }
}

export type AuditRecord = Prisma.AuditLogGetPayload<object> & { actorEmail: string | null };

export interface AuditFilter {
  action?: string;
  actorUserId?: number;
  actorType?: "user" | "api_key" | "system";
  resourceType?: string;
  resourceId?: number;
  dateFrom?: Date;
  dateTo?: Date;
}
