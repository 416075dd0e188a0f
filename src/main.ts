import { ConfigError, loadConfig } from "./config.ts";
import { createLogger } from "./platform/logger.ts";
import { Runtime } from "./runtime.ts";
import { buildServer, type HttpServer } from "./server.ts";
import { boot, type Booted } from "./boot.ts";

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
