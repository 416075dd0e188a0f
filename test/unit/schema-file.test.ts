import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { buildSchema } from "graphql";
import { printedSchema } from "../../src/graphql/schema.ts";

const FILE = new URL("../../schema.graphql", import.meta.url);

describe("schema.graphql", () => {
  it("is the printed, sorted schema (run `npm run schema:print` after changing the schema)", () => {
    const onDisk = fs.readFileSync(FILE, "utf8");
    const current = printedSchema();
    if (onDisk !== current) {
      expect.fail("schema.graphql is stale: run `npm run schema:print` and commit the result");
    }
    expect(onDisk).toBe(current);
  });

  it("parses and declares the operations the API serves", () => {
    const schema = buildSchema(fs.readFileSync(FILE, "utf8"));
    expect(Object.keys(schema.getQueryType()!.getFields())).toEqual(expect.arrayContaining(["me", "roles", "organisation", "userSettings", "runtimeSettings"]));
    expect(Object.keys(schema.getSubscriptionType()!.getFields())).toContain("userSettingsChanged");
  });
});
