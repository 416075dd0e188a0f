import path from "node:path";
import type { Config } from "../../config.ts";
import { LocalStorage } from "./local-storage.ts";
import type { Storage } from "./storage.ts";

/** The configured storage: `DATA_DIR/storage`, or S3 (not available yet: the start stops with the reason). */
export function createStorage(config: Readonly<Config>): Storage {
  if (config.STORAGE_ENGINE === "s3") throw new Error("invalid configuration: STORAGE_ENGINE=s3 is not supported yet; use local storage");
  return new LocalStorage(path.join(config.DATA_DIR, "storage"));
}
