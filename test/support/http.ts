import { checkRestContract } from "./contract.ts";

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string;
  /** Raw Authorization header value(s); several values send several headers. */
  authorization?: string | string[];
  json?: unknown;
  form?: Record<string, string>;
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

/**
 * A small HTTP client over fetch that always parses JSON answers and checks each REST answer against
 * the schema /openapi.json declares for it (`checkContract: false` for benches, which measure).
 */
export class HttpClient {
  constructor(
    readonly baseUrl: string,
    private readonly options: {
      checkContract?: boolean;
      /** The service's error log lines since the last call (the test app's), printed with an answer 500. */
      serverErrors?: () => string[];
    } = {},
  ) {}

  async request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<HttpResult<T>> {
    const headers = new Headers(opts.headers);
    if (opts.token) headers.set("authorization", `Bearer ${opts.token}`);
    if (opts.authorization !== undefined) {
      for (const v of ([] as string[]).concat(opts.authorization)) headers.append("authorization", v);
    }
    let body: string | undefined = opts.body;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers.set("content-type", "application/json");
    } else if (opts.form) {
      body = new URLSearchParams(opts.form).toString();
      headers.set("content-type", "application/x-www-form-urlencoded");
    }
    if (opts.contentType) headers.set("content-type", opts.contentType);
    const res = await fetch(this.baseUrl + path, { method, headers, body });
    const text = await res.text();
    if (res.status === 500 && this.options.serverErrors) console.error(`${method} ${path} answered 500; the service logged:\n${this.options.serverErrors().join("")}`);
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    if (this.options.checkContract !== false) checkRestContract(method, path, res.status, res.headers.get("content-type"), parsed);
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get = <T = any>(path: string, opts?: RequestOptions) => this.request<T>("GET", path, opts);
  post = <T = any>(path: string, opts?: RequestOptions) => this.request<T>("POST", path, opts);
  patch = <T = any>(path: string, opts?: RequestOptions) => this.request<T>("PATCH", path, opts);
  delete = <T = any>(path: string, opts?: RequestOptions) => this.request<T>("DELETE", path, opts);

  async graphql<T = any>(query: string, variables: Record<string, unknown> = {}, token?: string) {
    return this.post<{ data?: T; errors?: { message: string; extensions?: { code?: string; status?: number } }[] }>("/graphql", {
      token,
      json: { query, variables },
    });
  }

  async login(email: string, password: string, scope?: string): Promise<{ access_token: string; refresh_token: string; scope: string }> {
    const res = await this.post("/auth/token", { form: { grant_type: "password", username: email, password, ...(scope ? { scope } : {}) } });
    if (res.status !== 200) throw new Error(`login failed for ${email}: ${res.status} ${res.text}`);
    return res.body;
  }
}
