import crypto from "node:crypto";
import { Readable } from "node:stream";
import type { AppContext } from "../../app-context.ts";
import { authorize, type Principal } from "../../auth/principal.ts";
import { runAsPrincipal } from "../../auth/run-as.ts";
import { AppError, errors } from "../../platform/errors.ts";
import { openExport } from "../search/index.ts";
import { SearchLimiter } from "../search/index.ts";
import type { RegisteredTask } from "../tasks/index.ts";
import { exportChunks, FILE_TYPES, WALK_PAGE_SIZE, type ExportCounter } from "./export-files.ts";
import { findExport, markCompleted, markFailed, markRunning, saveExportProgress, type ExportRow } from "./export-store.ts";
import { canManageExport } from "./exports.policy.ts";

export const RUN_EXPORT_TASK = "run_export";
/** How often a running export's record count is written (the status route's progress). */
const PROGRESS_EVERY_MS = 2_000;

/** One limiter per process: an export run holds one of its owner's search slots while it walks. */
const limiters = new WeakMap<AppContext, SearchLimiter>();
const limiterOf = (app: AppContext) => {
  if (!limiters.has(app)) limiters.set(app, new SearchLimiter(app));
  return limiters.get(app)!;
};

/** The storage folder of an export's files (a run writes a new file; the previous one goes when it completes). */
export const exportFolder = (id: number) => `exports/${id}`;

/**
 * Task `run_export` (kwargs `export_id`): writes the export's file from every document its query
 * matches that the export's owner may read now (the owner's current rights, whoever started the
 * run), then replaces the previous file. A failure is the export's `error` and fails the run.
 */
export const runExportTask: RegisteredTask = {
  name: RUN_EXPORT_TASK,
  description: "Run a saved export (kwargs: export_id): its file is replaced when the run completes.",
  requiredScopes: ["exports:create"],
  maxAttempts: 1,
  queueName: "exports",
  checkParams(args, kwargs, where) {
    if (args.length > 0) throw errors.invalidField([...where, "args"], "this task takes keyword arguments only", args);
    const extra = Object.keys(kwargs).filter((k) => k !== "export_id" && k !== "user_id");
    if (extra.length) throw errors.invalidField([...where, "kwargs", extra[0]], "unknown keyword argument", kwargs[extra[0]]);
    const id = kwargs.export_id;
    if (!Number.isInteger(id) || (id as number) < 1 || (id as number) > 2_147_483_647) throw errors.invalidField([...where, "kwargs", "export_id"], "must be an export id", id);
  },
  /** An export of the caller's (administrators: anyone's), as every export route decides. */
  async checkTarget(app, p, _args, kwargs, where) {
    const e = await findExport(app.db.pool, kwargs.export_id as number);
    if (!e || !canManageExport(p, e)) throw errors.invalidField([...where, "kwargs", "export_id"], "no such export of yours", kwargs.export_id);
  },
  async execute({ app, principal, run, log }) {
    const id = run.kwargs.export_id as number;
    const e = await findExport(app.db.pool, id);
    if (!e) throw errors.notFound("Export");
    // A scheduled run while another run of the export is queued or going: that one writes the file.
    if ((e.status === "queued" || e.status === "running") && e.taskRunId !== null && e.taskRunId !== run.id) {
      return { export_id: id, skipped: "a run of this export is queued or in progress" };
    }
    const owner = e.userId === principal.userId ? principal : await runAsPrincipal(app.db.pool, e.userId, ["*"]);
    if (!owner) {
      await markFailed(app.db.pool, id, "the export's owner no longer exists or is disabled");
      throw errors.conflict("the export's owner no longer exists or is disabled");
    }
    await markRunning(app.db.pool, id, run.id);
    try {
      const outcome = await writeExportFile(app, owner, e);
      log.info({ export_id: id, run_id: run.id, records: outcome.records, bytes: outcome.fileSize }, "export written");
      return { export_id: id, record_count: outcome.records, file_size: outcome.fileSize };
    } catch (err) {
      const reason = err instanceof AppError ? err.message : "the export failed (see the service log)";
      if (!(err instanceof AppError)) log.error({ err, export_id: id, run_id: run.id }, "export failed");
      await markFailed(app.db.pool, id, reason);
      throw err;
    }
  },
};

/** Streams the file to storage, then records it complete and removes the file it replaces. */
async function writeExportFile(app: AppContext, owner: Principal, e: ExportRow): Promise<{ records: number; fileSize: number }> {
  authorize(owner, "exports:create", `${e.indexTarget}:read`);
  const pages = await openExport({ ctx: app, limiter: limiterOf(app), principal: owner, target: e.indexTarget, input: { query: e.query }, pageSize: WALK_PAGE_SIZE[e.format] });
  const counter: ExportCounter = { records: 0 };
  const key = `${exportFolder(e.id)}/${crypto.randomUUID()}.${FILE_TYPES[e.format].extension}`;
  let lastProgress = Date.now();
  const chunks = exportChunks(app.db.pool, { format: e.format, indexTarget: e.indexTarget, misp: { uuid: e.mispEventUuid, info: e.name, distribution: e.distribution ?? 0 } }, pages, counter);
  async function* withProgress() {
    for await (const chunk of chunks) {
      yield Buffer.from(chunk, "utf8");
      if (Date.now() - lastProgress > PROGRESS_EVERY_MS) {
        lastProgress = Date.now();
        await saveExportProgress(app.db.pool, e.id, counter.records);
      }
    }
  }
  let fileSize: number;
  try {
    fileSize = await app.storage.put(key, Readable.from(withProgress(), { objectMode: false }));
  } catch (err) {
    await app.storage.deleteTree(key).catch(() => undefined);
    throw err;
  } finally {
    await pages.close();
  }
  const previous = await markCompleted(app.db.pool, e.id, { storageKey: key, fileSize, recordCount: counter.records });
  if (previous && previous !== key) await app.storage.deleteTree(previous).catch((err) => app.log.warn({ err, export_id: e.id }, "could not remove an export's previous file"));
  return { records: counter.records, fileSize };
}
