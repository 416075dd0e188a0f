import type { Config } from "./config.ts";
import type { Database } from "./platform/db/index.ts";
import type { Logger } from "./platform/logger.ts";
import type { PgPubSub } from "./platform/pubsub.ts";
import type { AccessTokens } from "./auth/jwt.ts";
import type { AuthCache } from "./auth/auth-cache.ts";
import type { SearchIndex } from "./search/search-index.ts";
import type { Storage } from "./platform/storage/storage.ts";
import type { WarninglistCache } from "./modules/warninglists/index.ts";

/** The process-wide dependencies every service is built from. Created once in main.ts (or a test). */
export interface AppContext {
  config: Readonly<Config>;
  db: Database;
  log: Logger;
  pubsub: PgPubSub;
  tokens: AccessTokens;
  authCache: AuthCache;
  /** The search indices (OpenSearch or the PostgreSQL backend), shared by API and worker. */
  search: SearchIndex;
  /** Uploaded files (feed uploads). */
  storage: Storage;
  /** The enabled warninglists compiled for matching attribute values on write. */
  warninglists: WarninglistCache;
}
