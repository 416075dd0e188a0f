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
    fetch: authorizedFetch,
  });
  return { client, dispose: () => void ws.dispose() };
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
