import path from "node:path";
import type { Config } from "../../config.ts";
import { LocalStorage } from "./local-storage.ts";
import { S3Storage } from "./s3-storage.ts";
import type { Storage } from "./storage.ts";

/** The configured storage: `DATA_DIR/storage`, or an S3 bucket (which must exist). */
export function createStorage(config: Readonly<Config>): Storage {
  if (config.STORAGE_ENGINE === "s3") {
    if (!config.S3_BUCKET) throw new Error("invalid configuration: S3_BUCKET is required when STORAGE_ENGINE is s3");
    return new S3Storage({
      endpoint: config.S3_ENDPOINT,
      bucket: config.S3_BUCKET,
      region: config.S3_REGION,
      accessKeyId: config.S3_ACCESS_KEY_ID,
      secretAccessKey: config.S3_SECRET_ACCESS_KEY,
    });
  }
  return new LocalStorage(path.join(config.DATA_DIR, "storage"));
}
