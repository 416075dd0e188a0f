import { describe, expect, it } from "vitest";
import { ADMIN_SCOPE, SCOPE_CATALOGUE, effectiveScopes, grantedByAll, grants, isKnownScope } from "../../src/auth/scopes.ts";

describe("grants", () => {
  it.each([
    [["events:read"], "events:read", true],
    [["events:read"], "events:update", false],
    [["events:*"], "events:read", true],
    [["events:*"], "events:publish", true],
    [["events:*"], "attributes:read", false],
    [["event:*"], "events:read", false],
    [["events:*"], "events_extra:read", false],
    [["*"], "events:read", true],
    [["*"], "api_keys:admin", true],
    [["*"], "*", true],
    [["events:*"], "*", false],
    [["events:read", "events:update"], "events:*", false],
    [["events:*"], "events:*", true],
    [["events:read"], "events:*", false],
    [[], "events:read", false],
    [[], "*", false],
    [["users:me"], "users:read", false],
  ] as const)("%j grants %s: %s", (granted, required, expected) => {
    expect(grants(granted, required)).toBe(expected);
  });
});

describe("grantedByAll (intersections of role, token and key scopes)", () => {
  it("needs every list to grant the scope", () => {
    expect(grantedByAll([["*"], ["events:read"]], "events:read")).toBe(true);
    expect(grantedByAll([["*"], ["events:read"]], "events:update")).toBe(false);
    expect(grantedByAll([["events:*"], ["events:read", "events:tag"]], "events:tag")).toBe(true);
    expect(grantedByAll([["events:*"], ["events:read", "events:tag"]], "events:delete")).toBe(false);
    expect(grantedByAll([["events:read"], ["events:*"]], "events:delete")).toBe(false);
    expect(grantedByAll([["events:*"], ["attributes:*"]], "events:read")).toBe(false);
  });

  it("intersects wildcards exactly", () => {
    expect(grantedByAll([["*"], ["events:*"]], "events:*")).toBe(true);
    expect(grantedByAll([["*"], ["events:*"]], "*")).toBe(false);
    expect(grantedByAll([["*"], ["*"]], "*")).toBe(true);
    expect(grantedByAll([["events:*"], ["events:read"]], "events:*")).toBe(false);
  });

  it("a single list behaves like grants", () => {
    for (const [g, r] of [[["events:*"], "events:read"], [["users:me"], "users:read"], [["*"], "hunts:run"]] as const) {
      expect(grantedByAll([g], r)).toBe(grants(g, r));
    }
  });

  it("effectiveScopes shows what an intersection holds", () => {
    expect(effectiveScopes([["*"]])).toEqual([ADMIN_SCOPE]);
    expect(effectiveScopes([["*"], ["events:*"]])).toEqual(["events:*"]);
    expect(effectiveScopes([["events:*", "users:me"], ["events:read", "users:me", "hunts:run"]])).toEqual(["users:me", "events:read"]);
  });
});

describe("isKnownScope", () => {
  it.each(["*", "events:read", "events:*", "api_keys:admin", "hunts:run", "notifications:read", "feeds:fetch", "settings:read", "user_settings:update", "users:me"])(
    "knows %s",
    (s) => expect(isKnownScope(s)).toBe(true),
  );

  it.each(["", "events", "events:", ":read", "events:fly", "nope:*", "nope:read", "**", "events:**", "__proto__:*", "constructor:*", "toString", "hasOwnProperty", "EVENTS:READ", " events:read", "*:read"])(
    "does not know %j",
    (s) => expect(isKnownScope(s)).toBe(false),
  );

  it("knows every catalogue entry, each with a description", () => {
    for (const [scope, text] of Object.entries(SCOPE_CATALOGUE)) {
      expect(isKnownScope(scope)).toBe(true);
      expect(scope).toMatch(/^[a-z_]+:[a-z_]+$/);
      expect(text.trim()).not.toBe("");
      expect(isKnownScope(`${scope.split(":")[0]}:*`)).toBe(true);
    }
    expect(Object.isFrozen(SCOPE_CATALOGUE)).toBe(true);
  });
});
