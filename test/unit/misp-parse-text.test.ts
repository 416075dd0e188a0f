/**
 * MISP files reach the parser from feeds and sharing archives too, past the request check every
 * route shares: a NUL or an unpaired surrogate in any of their strings is an issue of its own
 * (an attribute skipped and listed, or the event refused), never a value stored as U+FFFD.
 */
import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { parseMispEvent } from "../../src/modules/events/misp-parse.ts";
import { AppError } from "../../src/platform/errors.ts";

const event = (attribute: Record<string, unknown>, info = "an event") => ({
  Event: { uuid: "0b3c5b0e-7d6f-4d2b-9d67-2f8c8a0e1c11", info, Attribute: [
      { uuid: crypto.randomUUID(), type: "text", value: "kept", category: "Other" },
      { uuid: crypto.randomUUID(), type: "text", category: "Other", ...attribute },
    ],
  },
});

describe("parseMispEvent and unsafe text", () => {
  it.each([
    ["a lone high surrogate", { value: "a\ud800b" }, "value"],
    ["a lone low surrogate", { value: "a\udc00b" }, "value"],
    ["a NUL", { value: "a\u0000b" }, "value"],
    ["a surrogate in the comment", { value: "ok", comment: "c\ud83d" }, "comment"],
  ])("%s in an attribute: skipped and listed, the rest kept", (_name, attribute, field) => {
    const { draft, skipped } = parseMispEvent(event(attribute), { skipInvalidAttributes: true });
    expect(draft.attributes.map((a) => a.value)).toEqual(["kept"]);
    expect(skipped.map((s) => s.loc.join("."))).toContain(`body.Event.Attribute.1.${field}`);
  });

  it("a lone surrogate in the event itself refuses the event with a 422", () => {
    let err: unknown;
    try {
      parseMispEvent(event({ value: "fine" }, "info \udfff"));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(422);
  });

  it("a well-formed pair (an emoji) is text", () => {
    const { draft, skipped } = parseMispEvent(event({ value: "smile \ud83d\ude00" }), { skipInvalidAttributes: true });
    expect(skipped).toEqual([]);
    expect(draft.attributes.map((a) => a.value)).toContain("smile \u{1F600}");
    expect(draft.attributes).toHaveLength(2);
  });
});
