import { ConfigError, loadConfig } from "./config.ts";
import type { HttpServer } from "./server.ts";
import type { Booted } from "./boot.ts";

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  // The service's modules load once the configuration is valid: a bad value stops the start in
  // half a second instead of after the whole application has loaded (3 s).
  const [{ createLogger }, { Runtime }, { buildServer }, { boot }] = await Promise.all([
    import("./platform/logger.ts"),
    import("./runtime.ts"),
    import("./server.ts"),
    import("./boot.ts"),
  ]);
  const log = createLogger(config.LOG_LEVEL);
  const started = Date.now();
  const runtime = new Runtime();

  // The API listens first, so /healthz can say "starting" while the database comes up.
  let server: HttpServer | null = null;
  if (config.ROLE !== "worker") {
    server = buildServer(runtime, log);
    await server.app.listen({ host: config.HOST, port: config.PORT });
  }

  let booted: Booted | null = null;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down");
    await server?.close().catch((err) => log.warn({ err }, "HTTP server close failed"));
    await booted?.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));

  try {
    booted = await boot(config, log, runtime);
  } catch (err) {
    log.fatal({ err }, "start failed");
    await server?.close().catch(() => undefined);
    process.exit(1);
  }
  log.info(
    { role: config.ROLE, url: config.ROLE === "worker" ? undefined : `http://${config.HOST}:${config.PORT}`, ms: Date.now() - started },
    "workbench ready",
  );
}

void main();
