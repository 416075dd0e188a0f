import crypto from "node:crypto";
import type { AppContext } from "../app-context.ts";
import { authorize, requireUser, type Principal } from "../auth/principal.ts";
import { errors } from "../platform/errors.ts";
import type { AuditService } from "../modules/audit/index.ts";
import { sha256Hex } from "../modules/api-keys/index.ts";
import { readRuntimeSetting } from "../modules/settings/index.ts";
import { heldMcpScopes } from "./tool-access.ts";

export interface McpConfig {
  token: string;
  expiresAt: Date;
  apiKeyId: number;
  scopes: string[];
  url: string;
  config: { mcpServers: Record<string, { type: "http"; url: string; headers: { Authorization: string } }> };
}

/** The name clients show for this server in their configuration. */
export const MCP_SERVER_NAME = "workbench";

/**
 * `/mcp/config`: mints the credential an MCP client uses. It is an API key (one listing and one
 * revocation path: `GET/DELETE /api-keys/`) carrying only the MCP scopes the caller holds, so it
 * reaches nothing but the tools, and each tool still needs its workbench scope in the user's role
 * at every call.
 */
export class McpConfigService {
  constructor(
    private readonly ctx: AppContext,
    private readonly audit: AuditService,
  ) {}

  async maxLifetimeSeconds(): Promise<number> {
    const { max_token_lifetime_days: days } = await readRuntimeSetting(this.ctx.db.pool, "mcp");
    return days * 86_400;
  }

  /** `expiresIn` in seconds; absent: the longest lifetime allowed. */
  async create(p: Principal | null, expiresIn: number | undefined, loc: (string | number)[]): Promise<McpConfig> {
    authorize(p, "mcp:config");
    requireUser(p);
    // As for API keys: a key cannot mint keys, so a leaked MCP token cannot extend itself.
    if (p.actorType !== "user") throw errors.forbidden("An MCP configuration can only be created with an interactive OAuth2 access token");
    const scopes = heldMcpScopes(p);
    if (scopes.length === 0) throw errors.insufficientScope(["mcp:use"]);
    const max = await this.maxLifetimeSeconds();
    const lifetime = expiresIn ?? max;
    if (!Number.isSafeInteger(lifetime) || lifetime < 60 || lifetime > max) {
      throw errors.invalidField(loc, `must be an integer from 60 to ${max} seconds (runtime setting mcp.max_token_lifetime_days)`, expiresIn);
    }
    const expiresAt = new Date(Date.now() + lifetime * 1000);
    const token = crypto.randomBytes(20).toString("hex");
    const name = `mcp-${new Date().toISOString()}`;
    const { prisma } = this.ctx.db;
    const key = await prisma.$transaction(async (tx) => {
      const created = await tx.apiKey.create({
        data: { userId: p.userId, name, comment: "MCP client credential (GET /mcp/config)", scopes, tokenHash: sha256Hex(token), expiresAt },
        select: { id: true },
      });
      const metadata = { name, scopes, expires_at: expiresAt.toISOString() };
      await this.audit.record(p, { action: "api_key.created", resourceType: "api_key", resourceId: created.id, metadata }, tx);
      await this.audit.record(p, { action: "mcp.token_created", resourceType: "api_key", resourceId: created.id, metadata }, tx);
      return created;
    });
    const url = `${this.ctx.config.PUBLIC_URL}/mcp`;
    return {
      token,
      expiresAt,
      apiKeyId: key.id,
      scopes,
      url,
      config: { mcpServers: { [MCP_SERVER_NAME]: { type: "http", url, headers: { Authorization: `Bearer ${token}` } } } },
    };
  }
}
