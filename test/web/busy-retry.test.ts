// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from "vitest";
import { createGraphqlClient } from "../../src/web/lib/graphql-client.ts";

/**
 * The network as a script standing in for the API: the signed-out session's refresh is refused,
 * GraphQL requests get the next scripted answer (the last repeats). Records what was sent.
 */
function scriptedNetwork(answers: object[]) {
  const sent: { method: string; body: string | null }[] = [];
  vi.stubGlobal("fetch", async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.includes("/auth/refresh")) return new Response(JSON.stringify({ error: "invalid_grant" }), { status: 401, headers: { "content-type": "application/json" } });
    const answer = answers[Math.min(sent.length, answers.length - 1)];
    sent.push({ method: (init.method ?? "GET").toUpperCase(), body: typeof init.body === "string" ? init.body : null });
    return new Response(JSON.stringify(answer), { headers: { "content-type": "application/graphql-response+json" } });
  });
  return sent;
}

const busy = { data: null, errors: [{ message: "Too many concurrent searches", extensions: { code: "rate_limited", retry_after: 0.01 } }] };

afterEach(() => vi.unstubAllGlobals());

describe("queries refused while the user's searches are busy", () => {
  it("are sent again after the wait the API names, and the caller sees only the answer", async () => {
    const sent = scriptedNetwork([busy, busy, { data: { __typename: "Query" } }]);
    const { client, dispose } = createGraphqlClient();
    const result = await client.query("query Busy { __typename }", {}, { requestPolicy: "network-only" }).toPromise();
    dispose();
    expect(result.error).toBeUndefined();
    expect(result.data).toEqual({ __typename: "Query" });
    expect(sent).toHaveLength(3);
  });

  it("are given up after six tries, with the refusal as the error", async () => {
    const sent = scriptedNetwork([busy]);
    const { client, dispose } = createGraphqlClient();
    const result = await client.query("query Busy { __typename }", {}, { requestPolicy: "network-only" }).toPromise();
    dispose();
    expect(result.error?.graphQLErrors[0]?.extensions?.code).toBe("rate_limited");
    expect(sent).toHaveLength(6);
  });

  it("leave mutations alone: their refusal reaches the user at once", async () => {
    const sent = scriptedNetwork([busy, { data: { __typename: "Mutation" } }]);
    const { client, dispose } = createGraphqlClient();
    const result = await client.mutation("mutation Busy { __typename }", {}).toPromise();
    dispose();
    expect(result.error?.graphQLErrors[0]?.extensions?.code).toBe("rate_limited");
    expect(sent).toEqual([expect.objectContaining({ method: "POST" })]);
  });
});
