const CACHE_MS = 1000;

/** What /healthz looks at: whether the service has started, and the database. */
export interface HealthProbes {
  /** The boot stage while the service is starting; null once it is ready. */
  startingStage(): string | null;
  /** Resolves when the database answers (on a connection of its own, not the busy pool's). */
  pingDatabase(): Promise<unknown>;
}

/**
 * /healthz: ready, database reachable. Cached for a second so probes cost nothing under load. The
 * probe has a connection of its own, so a pool busy with work does not read as a database down.
 */
export class HealthCheck {
  private last: { at: number; ok: boolean; reason?: string } | null = null;
  private inflight: Promise<{ ok: boolean; reason?: string }> | null = null;

  constructor(private readonly probes: HealthProbes) {}

  async check(): Promise<{ ok: boolean; reason?: string }> {
    const stage = this.probes.startingStage();
    if (stage !== null) return { ok: false, reason: `starting: ${stage}` };
    if (this.last && Date.now() - this.last.at < CACHE_MS) return this.last;
    this.inflight ??= this.probe().finally(() => (this.inflight = null));
    return this.inflight;
  }

  private async probe(): Promise<{ ok: boolean; reason?: string }> {
    let result: { ok: boolean; reason?: string };
    try {
      await withTimeout(this.probes.pingDatabase(), 2000);
      result = { ok: true };
    } catch {
      result = { ok: false, reason: "database unreachable" };
    }
    this.last = { at: Date.now(), ...result };
    return result;
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error("timeout")), ms);
    p.then((v) => (clearTimeout(t), resolve(v)), (e) => (clearTimeout(t), reject(e)));
  });
}
