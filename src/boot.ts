import type { Config } from "./config.ts";
import type { AppContext } from "./app-context.ts";
import { AccessTokens, resolveJwtSecret } from "./auth/jwt.ts";
import { AUTH_CHANNEL, AuthCache } from "./auth/auth-cache.ts";
import { createSearchIndex } from "./search/create-search-index.ts";
import { createStorage } from "./platform/storage/create-storage.ts";
import { prepareSearchIndices } from "./indexing/prepare.ts";
import { secretBox } from "./platform/secret-box.ts";
import { acquireDataDirLock } from "./platform/db/data-dir-lock.ts";
import { startEmbeddedPostgres } from "./platform/db/embedded-postgres.ts";
import { connectDatabase, waitForDatabase } from "./platform/db/index.ts";
import { migrateDatabase } from "./platform/db/migrate.ts";
import type { Logger } from "./platform/logger.ts";
import { PgPubSub } from "./platform/pubsub.ts";
import { WARNINGLISTS_CHANNEL, WarninglistCache } from "./modules/warninglists/index.ts";
import { startWorker, type WorkerHandle } from "./jobs/worker.ts";
import { createServices, type Services } from "./services.ts";
import type { Runtime } from "./runtime.ts";

/** How long a start waits for an external database (DATABASE_URL) before giving up. */
const DATABASE_WAIT_MS = 30_000;

export interface Booted {
  ctx: AppContext;
  services: Services;
  worker: WorkerHandle | null;
  stop(): Promise<void>;
}

/**
 * Brings the service up in order (database, migrations, pubsub, services, first admin, worker)
 * and marks the runtime ready. Each step's name is the stage /healthz reports until then.
 */
export async function boot(config: Readonly<Config>, log: Logger, runtime: Runtime): Promise<Booted> {
  const cleanups: (() => Promise<void> | void)[] = [];
  const stop = async () => {
    for (const fn of cleanups.reverse()) await Promise.resolve(fn()).catch((err) => log.warn({ err }, "shutdown step failed"));
  };
  try {
    // First: a damaged secret file stops the start here, not at the first login or sync.
    const jwtSecret = resolveJwtSecret(config.JWT_SECRET, config.dataDir);
    secretBox(config.SECRETS_KEY, config.dataDir);
    let url = config.DATABASE_URL;
    if (!url) {
      runtime.stage = "starting embedded PostgreSQL";
      cleanups.push(acquireDataDirLock(config.dataDir));
      const embedded = await startEmbeddedPostgres(config.dataDir, log);
      cleanups.push(() => embedded.stop());
      url = embedded.url;
    } else {
      runtime.stage = "waiting for the database";
      await waitForDatabase(url, log, DATABASE_WAIT_MS);
    }
    const db = connectDatabase(url, log, { searchPoolSize: config.SEARCH_CONCURRENCY, searchWaitMs: config.SEARCH_TIMEOUT_MS });
    cleanups.push(() => db.close());
    runtime.stage = "applying migrations";
    await migrateDatabase(db.pool, log);

    runtime.stage = "connecting pubsub";
    const pubsub = new PgPubSub(url, db.pool, log);
    const authCache = new AuthCache();
    pubsub.listen(AUTH_CHANNEL, (message) => authCache.invalidate(message));
    pubsub.onConnectionChange((connected) => authCache.setEnabled(connected));
    const warninglists = new WarninglistCache(db.pool);
    pubsub.listen(WARNINGLISTS_CHANNEL, () => warninglists.invalidate());
    pubsub.onConnectionChange((connected) => warninglists.setEnabled(connected));
    await pubsub.start();
    cleanups.push(() => pubsub.close());

    const tokens = new AccessTokens(jwtSecret, config.ACCESS_TOKEN_TTL_SECONDS);
    runtime.stage = "preparing the search indices";
    const search = createSearchIndex(config, db, (message) => log.info(message));
    cleanups.push(() => search.close());
    await prepareSearchIndices(search, log);
    const ctx: AppContext = { config, db, log, pubsub, tokens, authCache, search, storage: createStorage(config), warninglists };
    const services = createServices(ctx);
    await services.auth.bootstrapAdmin();

    let worker: WorkerHandle | null = null;
    if (config.ROLE !== "api") {
      runtime.stage = "starting worker";
      worker = await startWorker(ctx, services, { singleWorker: config.ROLE === "all" && !config.DATABASE_URL });
      cleanups.push(() => worker!.stop());
    }
    runtime.ready(ctx, services);
    return { ctx, services, worker, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
