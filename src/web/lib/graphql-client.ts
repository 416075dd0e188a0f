import { createClient as createWsClient, type Client as WsClient } from "graphql-ws";
import { Client, cacheExchange, fetchExchange, mapExchange, subscriptionExchange } from "urql";
import { session } from "./session.ts";

/** Codes our API gives a request whose credential is no longer valid. */
const SESSION_ENDED = new Set(["unauthenticated", "invalid_token", "token_revoked", "invalid_grant"]);

function wsUrl(): string {
  const { protocol, host } = window.location;
  return `${protocol === "https:" ? "wss:" : "ws:"}//${host}/graphql`;
}

/**
 * One client per signed-in session: queries and mutations over HTTP with the in-memory token,
 * subscriptions over graphql-ws authenticated by the same token when the socket opens.
 */
export function createGraphqlClient(): { client: Client; dispose(): void } {
  const ws: WsClient = createWsClient({
    url: wsUrl(),
    lazy: true,
    retryAttempts: 20,
    shouldRetry: () => true,
    connectionParams: async () => {
      const token = await session.token();
      return token ? { authorization: `Bearer ${token}` } : {};
    },
    on: {
      closed: (event) => {
        // 4401/4403: the server refused the socket's credential, also when the token it opened with
        // expired. The socket reconnects with a fresh one; only a session that cannot refresh ends.
        const code = (event as CloseEvent | undefined)?.code;
        if (code === 4401 || code === 4403) void session.revalidate();
      },
    },
  });

  const client = new Client({
    url: "/graphql",
    requestPolicy: "cache-and-network",
    exchanges: [
      cacheExchange,
      mapExchange({
        onError(error) {
          const ended = error.response?.status === 401 || error.graphQLErrors.some((e) => SESSION_ENDED.has(String(e.extensions?.code)));
          if (ended) session.expired();
        },
      }),
      fetchExchange,
      subscriptionExchange({
        forwardSubscription: (request) => ({
          subscribe: (sink) => ({ unsubscribe: ws.subscribe({ ...request, query: request.query ?? "" }, sink) }),
        }),
      }),
    ],
    fetch: fetchRetryingBusyQueries,
  });
  return { client, dispose: () => void ws.dispose() };
}

/** Tries of a query refused because the user runs as many searches as the API allows at once. */
const BUSY_TRIES = 6;

/**
 * GraphQL over HTTP for urql: the API runs a few searches per user at once and refuses more with
 * `rate_limited` and the seconds to wait (`retry_after`). Explore's sections, its histogram and an
 * export can meet that limit together, so a refused query is sent again after that wait, here for
 * every page. Mutations are not repeated: the user sees their refusal.
 */
async function fetchRetryingBusyQueries(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  for (let tries = 1; ; tries++) {
    const res = await authorizedFetch(input, init);
    if (tries === BUSY_TRIES || !isQuery(init)) return res;
    const wait = await busyWaitSeconds(res);
    if (wait === null) return res;
    await new Promise((resolve) => setTimeout(resolve, wait * 1000 + Math.random() * 250));
  }
}

/** urql sends queries as GET when they fit in a URL, else as POST with the document in the body. */
function isQuery(init: RequestInit): boolean {
  const method = (init.method ?? "GET").toUpperCase();
  if (method === "GET") return true;
  if (typeof init.body !== "string") return false;
  try {
    return /^\s*(query\b|\{)/.test(String((JSON.parse(init.body) as { query?: unknown }).query ?? ""));
  } catch {
    return false;
  }
}

/** The wait a `rate_limited` answer names, or null for any other answer (read from a copy, so urql still gets the body). */
async function busyWaitSeconds(res: Response): Promise<number | null> {
  if (!res.ok || !/json/.test(res.headers.get("content-type") ?? "")) return null;
  try {
    const body = (await res.clone().json()) as { errors?: { extensions?: { code?: unknown; retry_after?: unknown } }[] };
    const busy = body.errors?.find((e) => e.extensions?.code === "rate_limited");
    if (!busy) return null;
    const wait = Number(busy.extensions?.retry_after ?? 1);
    return Number.isFinite(wait) && wait >= 0 ? Math.min(wait, 30) : 1;
  } catch {
    return null;
  }
}

/** A call with the session's token (GraphQL over HTTP, and REST where a file moves); a 401 ends the session. */
export async function authorizedFetch(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  const token = await session.token();
  const headers = new Headers(init.headers);
  if (token) headers.set("authorization", `Bearer ${token}`);
  const res = await fetch(input, { ...init, headers });
  if (res.status === 401) session.expired();
  return res;
}
