/**
 * The signed-in session. The access token lives in this module's memory only; the refresh token is
 * an HttpOnly cookie the page cannot read, sent by the browser to /auth/refresh alone. A reload
 * restores the session through that cookie; the token is refreshed a minute before it expires.
 */
export type SessionStatus = "restoring" | "signed-out" | "signed-in";

export interface SessionState {
  status: SessionStatus;
  /** Why the user sees the sign-in page: their session ended while they were working. */
  notice: string | null;
}

interface TokenAnswer {
  access_token: string;
  expires_in: number;
}

export class SignInError extends Error {}

type Listener = () => void;

class Session {
  private state: SessionState = { status: "restoring", notice: null };
  private accessToken: string | null = null;
  private expiresAt = 0;
  private refreshing: Promise<boolean> | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly listeners = new Set<Listener>();

  snapshot = (): SessionState => this.state;

  subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** At page load: a valid refresh cookie signs the user in again without a password. */
  async restore(): Promise<void> {
    const ok = await this.refresh();
    if (!ok) this.set({ status: "signed-out", notice: null });
  }

  async signIn(email: string, password: string): Promise<void> {
    const body = new URLSearchParams({ grant_type: "password", username: email, password, refresh_cookie: "true" });
    const res = await fetch("/auth/token", { method: "POST", body, headers: { accept: "application/json" } });
    if (!res.ok) throw new SignInError(await problemText(res, "Sign-in failed"));
    this.accept((await res.json()) as TokenAnswer);
  }

  /** Revokes every session of the user on the server, then forgets the token here. */
  async signOut(): Promise<void> {
    const token = this.accessToken;
    this.forget({ status: "signed-out", notice: null });
    if (token) await fetch("/auth/logout", { method: "POST", headers: { authorization: `Bearer ${token}` } }).catch(() => undefined);
  }

  /** A valid access token for a request, refreshed first when it is about to expire. */
  async token(): Promise<string | null> {
    if (this.accessToken && Date.now() < this.expiresAt - 30_000) return this.accessToken;
    return (await this.refresh()) ? this.accessToken : null;
  }

  /** The API refused our token (expired, revoked, user disabled): back to sign-in, on the same page. */
  expired(): void {
    if (this.state.status !== "signed-in") return;
    this.forget({ status: "signed-out", notice: "Your session has ended. Sign in again to continue." });
  }

  /**
   * The server refused our credential somewhere (a socket closed with 4401/4403): if a refresh
   * still works the token had merely expired; otherwise the session ended elsewhere.
   */
  async revalidate(): Promise<void> {
    if (this.state.status === "signed-in" && !(await this.refresh())) this.expired();
  }

  private refresh(): Promise<boolean> {
    this.refreshing ??= (async () => {
      try {
        const res = await fetch("/auth/refresh", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
        if (!res.ok) return false;
        this.accept((await res.json()) as TokenAnswer);
        return true;
      } catch {
        return false;
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  private accept(answer: TokenAnswer): void {
    this.accessToken = answer.access_token;
    this.expiresAt = Date.now() + answer.expires_in * 1000;
    clearTimeout(this.timer);
    const wait = Math.max(5_000, answer.expires_in * 1000 - 60_000);
    this.timer = setTimeout(() => void this.refresh().then((ok) => ok || this.expired()), wait);
    if (this.state.status !== "signed-in") this.set({ status: "signed-in", notice: null });
  }

  private forget(next: SessionState): void {
    clearTimeout(this.timer);
    this.accessToken = null;
    this.expiresAt = 0;
    this.set(next);
  }

  private set(next: SessionState): void {
    this.state = next;
    for (const l of this.listeners) l();
  }
}

/** The message of an API error answer (`{detail}`), or a fallback. */
export async function problemText(res: Response, fallback: string): Promise<string> {
  try {
    const body = (await res.json()) as { detail?: unknown; error_description?: unknown };
    const detail = body.error_description ?? body.detail;
    if (typeof detail === "string") return detail;
    if (Array.isArray(detail) && detail.length) return detail.map((d: { msg?: string }) => d.msg ?? String(d)).join("; ");
  } catch {
    /* not JSON */
  }
  return `${fallback} (HTTP ${res.status})`;
}

export const session = new Session();
