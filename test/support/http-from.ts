import http from "node:http";

export interface FromResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/**
 * One request sent from a chosen loopback address (any of 127.0.0.0/8), so tests can play several
 * clients: the service sees each as its own remote address.
 */
export function requestFrom(
  baseUrl: string,
  from: string,
  method: string,
  path: string,
  opts: { form?: Record<string, string>; json?: unknown; token?: string; userAgent?: string } = {},
): Promise<FromResult> {
  const url = new URL(path, baseUrl);
  const body = opts.form ? new URLSearchParams(opts.form).toString() : opts.json !== undefined ? JSON.stringify(opts.json) : undefined;
  const headers: Record<string, string> = {};
  if (opts.form) headers["content-type"] = "application/x-www-form-urlencoded";
  if (opts.json !== undefined) headers["content-type"] = "application/json";
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.userAgent) headers["user-agent"] = opts.userAgent;
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, localAddress: from, agent: false },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (text += c));
        res.on("end", () => {
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** POST /auth/token (password grant) from `from`. */
export function loginFrom(baseUrl: string, from: string, username: string, password: string, userAgent?: string): Promise<FromResult> {
  return requestFrom(baseUrl, from, "POST", "/auth/token", { form: { grant_type: "password", username, password }, userAgent });
}
