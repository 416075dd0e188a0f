import type { Prisma, PrismaClient } from "../../platform/db/index.ts";
import { authorize, type Principal } from "../../auth/principal.ts";
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

  /** The audit log for administrators, newest first. `action` matches as a case-insensitive prefix. */
  async list(p: Principal | null, filter: AuditFilter, req: PageRequest): Promise<Page<AuditRecord>> {
    authorize(p, "audit_logs:admin");
    const where: Prisma.AuditLogWhereInput = {
      ...(filter.action ? { action: { startsWith: filter.action, mode: "insensitive" } } : {}),
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
