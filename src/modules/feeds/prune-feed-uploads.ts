import type { Task } from "graphile-worker";
import type { AppContext } from "../../app-context.ts";
import { withTransaction } from "../../platform/db/transaction.ts";
import { adoptOrphans, claimUnusedUpload, unusedUploads } from "./feed-upload-store.ts";
import { UPLOAD_KEY } from "./feed-upload.ts";

/** An upload no feed reads is kept this long (time to create the feed that uses it). */
export const UNUSED_UPLOAD_SECONDS = 24 * 3600;
const BATCH = 100;

/**
 * Removes the uploads no feed reads that were recorded more than `olderThanSeconds` ago: the
 * stored files (local or S3), then the row. Each one in a transaction that holds its row, so a
 * feed created meanwhile either waits and finds it gone (404) or keeps it; a failed removal keeps
 * the row for the next run. Stored uploads found without a row (made before uploads were
 * recorded) are recorded as nobody's first, and so removed a day later.
 */
export async function pruneFeedUploads(app: Pick<AppContext, "db" | "storage">, olderThanSeconds = UNUSED_UPLOAD_SECONDS): Promise<{ removed: number; adopted: number }> {
  const pool = app.db.pool;
  const orphans = (await app.storage.children("feed-uploads")).filter((k) => UPLOAD_KEY.test(k));
  let adopted = 0;
  for (let i = 0; i < orphans.length; i += 10_000) adopted += await adoptOrphans(pool, orphans.slice(i, i + 10_000));
  let removed = 0;
  for (;;) {
    const keys = await unusedUploads(pool, olderThanSeconds, BATCH);
    let progress = 0;
    for (const key of keys) {
      const gone = await withTransaction(pool, async (client) => {
        if (!(await claimUnusedUpload(client, key))) return false;
        await app.storage.deleteTree(key);
        return true;
      });
      if (gone) progress++;
    }
    removed += progress;
    if (keys.length < BATCH || progress === 0) return { removed, adopted };
  }
}

export function pruneFeedUploadsTask(app: AppContext): Task {
  return async (_payload, helpers) => {
    const { removed } = await pruneFeedUploads(app);
    if (removed > 0) helpers.logger.info(`removed ${removed} feed uploads no feed uses`);
  };
}
