import type { AppContext } from "../../app-context.ts";
import { authorize, requireUser, type Principal } from "../../auth/principal.ts";
import { errors, parseInput } from "../../platform/errors.ts";
import type { AuditService } from "../audit/index.ts";
import type { Prisma } from "../../generated/prisma/client.ts";
import { readRuntimeSetting } from "./runtime-settings.reader.ts";
import { runtimeSettingContract, userSettingContract } from "./settings.contracts.ts";
import {
  RUNTIME_DEFAULTS,
  isRuntimeNamespace,
  type RuntimeNamespace,
  type RuntimeSettingValue,
} from "./runtime-settings.schema.ts";
import { MAX_USER_SETTING_BYTES, USER_NAMESPACE_PATTERN } from "./user-settings.schema.ts";

export type JsonObject = Record<string, unknown>;

/** Topic on which a user's own settings changes are published (their other sessions follow them). */
export const userSettingsTopic = (userId: number) => `user_settings:${userId}`;

export class SettingsService {
  constructor(
    private readonly ctx: AppContext,
    private readonly audit: AuditService,
  ) {}

  // ---- user settings: always the caller's own, keyed by (user, namespace) ----

  async userSettings(p: Principal | null): Promise<Record<string, JsonObject>> {
    authorize(p, "user_settings:read");
    requireUser(p);
    const rows = await this.ctx.db.prisma.userSetting.findMany({ where: { userId: p.userId }, orderBy: { namespace: "asc" } });
    return Object.fromEntries(rows.map((r) => [r.namespace, r.value as JsonObject]));
  }

  async userSetting(p: Principal | null, namespace: string): Promise<JsonObject | null> {
    authorize(p, "user_settings:read");
    requireUser(p);
    checkUserNamespace(namespace);
    const row = await this.ctx.db.prisma.userSetting.findUnique({ where: { userId_namespace: { userId: p.userId, namespace } } });
    return (row?.value as JsonObject | undefined) ?? null;
  }

  /** Replaces the namespace (as the peer does), after validating known namespaces; errors name the value's keys. */
  async setUserSetting(p: Principal | null, namespace: string, value: unknown): Promise<JsonObject> {
    authorize(p, "user_settings:update");
    requireUser(p);
    checkUserNamespace(namespace);
    const stored: JsonObject = parseInput(userSettingContract(namespace), value);
    if (Buffer.byteLength(JSON.stringify(stored)) > MAX_USER_SETTING_BYTES) {
      throw errors.payloadTooLarge(`A user setting may hold at most ${MAX_USER_SETTING_BYTES} bytes`);
    }
    await this.ctx.db.prisma.userSetting.upsert({
      where: { userId_namespace: { userId: p.userId, namespace } },
      create: { userId: p.userId, namespace, value: stored as Prisma.InputJsonValue },
      update: { value: stored as Prisma.InputJsonValue },
    });
    await this.ctx.pubsub.publish(userSettingsTopic(p.userId), { namespace });
    return stored;
  }

  async deleteUserSetting(p: Principal | null, namespace: string): Promise<void> {
    authorize(p, "user_settings:update");
    requireUser(p);
    checkUserNamespace(namespace);
    const { count } = await this.ctx.db.prisma.userSetting.deleteMany({ where: { userId: p.userId, namespace } });
    if (count === 0) throw errors.notFound("User setting");
    await this.ctx.pubsub.publish(userSettingsTopic(p.userId), { namespace });
  }

  // ---- runtime settings: global, administrators ----

  async runtimeSettings(p: Principal | null): Promise<Record<RuntimeNamespace, JsonObject>> {
    authorize(p, "settings:read");
    const rows = await this.ctx.db.prisma.runtimeSetting.findMany();
    const stored = new Map(rows.map((r) => [r.namespace, r.value as JsonObject]));
    return Object.fromEntries(
      (Object.keys(RUNTIME_DEFAULTS) as RuntimeNamespace[]).map((ns) => [ns, stored.get(ns) ?? RUNTIME_DEFAULTS[ns]]),
    ) as Record<RuntimeNamespace, JsonObject>;
  }

  async runtimeSetting(p: Principal | null, namespace: string): Promise<JsonObject> {
    authorize(p, "settings:read");
    return this.read(checkRuntimeNamespace(namespace));
  }

  /** Internal read for services and jobs: the stored namespace, or its defaults. */
  read<N extends RuntimeNamespace>(namespace: N): Promise<RuntimeSettingValue<N>> {
    return readRuntimeSetting(this.ctx.db.pool, namespace);
  }

  async setRuntimeSetting(p: Principal | null, namespace: string, value: unknown): Promise<JsonObject> {
    authorize(p, "settings:update");
    const ns = checkRuntimeNamespace(namespace);
    const next: JsonObject = parseInput(runtimeSettingContract(ns), value);
    const { prisma } = this.ctx.db;
    await prisma.$transaction(async (tx) => {
      const before = await tx.runtimeSetting.findUnique({ where: { namespace: ns } });
      await tx.runtimeSetting.upsert({
        where: { namespace: ns },
        create: { namespace: ns, value: next as Prisma.InputJsonValue },
        update: { value: next as Prisma.InputJsonValue },
      });
      await this.audit.record(p, {
        action: "runtime_setting.updated",
        resourceType: "runtime_setting",
        metadata: { namespace: ns, diff: jsonDiff((before?.value as JsonObject | undefined) ?? RUNTIME_DEFAULTS[ns], next) },
      }, tx);
    });
    return next;
  }

  async resetRuntimeSetting(p: Principal | null, namespace: string): Promise<JsonObject> {
    authorize(p, "settings:delete");
    const ns = checkRuntimeNamespace(namespace);
    const { prisma } = this.ctx.db;
    await prisma.$transaction(async (tx) => {
      const before = await tx.runtimeSetting.findUnique({ where: { namespace: ns } });
      if (!before) return;
      await tx.runtimeSetting.delete({ where: { namespace: ns } });
      await this.audit.record(p, { action: "runtime_setting.deleted", resourceType: "runtime_setting", metadata: { namespace: ns, previous: before.value } }, tx);
    });
    return RUNTIME_DEFAULTS[ns];
  }
}

function checkUserNamespace(namespace: string): void {
  if (!USER_NAMESPACE_PATTERN.test(namespace)) {
    throw errors.invalidInput(["namespace"], "Namespace must match ^[a-z][a-z0-9_-]{0,63}$", namespace.slice(0, 100));
  }
}

function checkRuntimeNamespace(namespace: string): RuntimeNamespace {
  if (!isRuntimeNamespace(namespace)) throw errors.notFound("Runtime setting namespace");
  return namespace;
}

function jsonDiff(before: JsonObject, after: JsonObject) {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const added: JsonObject = {};
  const removed: JsonObject = {};
  const changed: Record<string, { before: unknown; after: unknown }> = {};
  for (const k of keys) {
    if (!(k in before)) added[k] = after[k];
    else if (!(k in after)) removed[k] = before[k];
    else if (JSON.stringify(before[k]) !== JSON.stringify(after[k])) changed[k] = { before: before[k], after: after[k] };
  }
  return { added, removed, changed };
}
