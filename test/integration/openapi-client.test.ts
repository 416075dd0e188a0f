import createClient from "openapi-fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { paths } from "../generated/openapi.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestApp, type TestApp } from "../support/app.ts";
import { settled } from "../support/settled.ts";
import { openApiClientTypes } from "../../rest-shim/openapi-file.ts";
import fs from "node:fs";

/**
 * A client generated from /openapi.json (openapi-typescript's types, openapi-fetch) drives the
 * service through a short analyst scenario. `npm run typecheck` checks this file against the
 * generated types: a route whose contract changes breaks the build here, as it would a user's client.
 */
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp("openapi_client", { ROLE: "all" });
});
afterAll(() => app?.close());

describe("a client generated from /openapi.json", () => {
  it("has its checked-in types generated from the current document (run `npm run openapi:print`)", async () => {
    const onDisk = fs.readFileSync(new URL("../generated/openapi.ts", import.meta.url), "utf8");
    if (onDisk !== (await openApiClientTypes())) expect.fail("test/generated/openapi.ts is stale: run `npm run openapi:print`");
  });

  it("logs in, creates an event with an attribute, searches, creates a hunt and runs it", async () => {
    const anonymous = createClient<paths>({ baseUrl: app.url });
    const login = await anonymous.POST("/auth/token", {
      body: { grant_type: "password", username: ADMIN_EMAIL, password: ADMIN_PASSWORD },
      bodySerializer: (b) => new URLSearchParams(b as Record<string, string>).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(login.error).toBeUndefined();
    const token = login.data!.access_token;
    const api = createClient<paths>({ baseUrl: app.url, headers: { authorization: `Bearer ${token}` } });

    const event = await api.POST("/events/", { body: { info: "Generated client scenario", threat_level: 2, distribution: 0 } });
    expect(event.response.status).toBe(201);
    const eventUuid = event.data!.uuid;
    const attribute = await api.POST("/attributes/", {
      body: { event_uuid: eventUuid, type: "domain", value: "client-scenario.example", to_ids: true },
    });
    expect(attribute.response.status).toBe(201);
    expect(attribute.data!.event_uuid).toBe(eventUuid);

    const read = await api.GET("/events/{event_uuid}", { params: { path: { event_uuid: eventUuid } } });
    expect(read.data!.info).toBe("Generated client scenario");
    expect(read.data!.related_events).toEqual([]);

    const bad = await api.GET("/events/{event_uuid}", { params: { path: { event_uuid: "not-a-uuid" } } });
    expect(bad.response.status).toBe(422);
    expect(bad.error).toMatchObject({ code: "validation_error" });

    await settled(app);
    const search = await api.GET("/attributes/search", { params: { query: { query: 'value:"client-scenario.example"' } } });
    expect(search.error).toBeUndefined();
    expect(search.data!.total).toBe(1);

    const hunt = await api.POST("/hunts/", { body: { name: "client scenario", query: 'value:"client-scenario.example"', hunt_type: "search", index_target: "attributes" } });
    expect(hunt.response.status).toBe(201);
    const run = await api.POST("/hunts/{hunt_id}/run", { params: { path: { hunt_id: String(hunt.data!.id) } } });
    expect(run.error).toBeUndefined();
    expect(run.data!.total).toBe(1);
    expect(run.data!.hunt.last_match_count).toBe(1);
  });
});
