import type { AppContext } from "./app-context.ts";
import type { Services } from "./services.ts";
import { errors } from "./platform/errors.ts";

/**
 * What the HTTP server serves from. The server listens before the database is ready so that
 * /healthz can answer 503 with the boot stage; every other route answers 503 until `ready()`.
 */
export class Runtime {
  stage = "starting";
  private app: { ctx: AppContext; services: Services } | null = null;

  ready(ctx: AppContext, services: Services): void {
    this.app = { ctx, services };
    this.stage = "ready";
  }

  get isReady(): boolean {
    return this.app !== null;
  }

  get ctx(): AppContext {
    if (!this.app) throw errors.unavailable(`Service is starting: ${this.stage}`);
    return this.app.ctx;
  }

  get services(): Services {
    if (!this.app) throw errors.unavailable(`Service is starting: ${this.stage}`);
    return this.app.services;
  }
}
