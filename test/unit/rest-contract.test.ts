import { describe, expect, it } from "vitest";
import { checkRestContract } from "../support/contract.ts";

const EVENT_URL = "/events/5b1f3c7e-4a58-4c1a-9d8e-0b7b7c1e2f3a";

describe("the test client's contract check", () => {
  it("refuses an answer that is not its operation's declared schema", () => {
    expect(() => checkRestContract("GET", EVENT_URL, 200, "application/json", { uuid: "x" })).toThrow(/does not match its declared schema/);
    expect(() => checkRestContract("POST", "/events/x/publish", 200, "application/json", { message: 1 })).toThrow(/declared schema/);
  });

  it("refuses an error body without its code, and a success status the operation does not declare", () => {
    expect(() => checkRestContract("GET", EVENT_URL, 404, "application/json", { detail: "Event not found" })).toThrow(/declared schema/);
    expect(() => checkRestContract("GET", EVENT_URL, 202, "application/json", {})).toThrow(/does not declare/);
  });

  it("accepts the error shape, matches literal segments before parameters, and leaves other paths alone", () => {
    checkRestContract("GET", EVENT_URL, 404, "application/json", { detail: "Event not found", code: "not_found" });
    expect(() => checkRestContract("POST", "/events/import?on_invalid=skip", 201, "application/json", { uuid: 1 })).toThrow(/POST \/events\/import 201/);
    checkRestContract("POST", "/graphql", 200, "application/json", { data: null });
    checkRestContract("GET", "/events/export?query=x", 200, "application/x-ndjson", "not json");
  });
});
