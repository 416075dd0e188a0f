// @vitest-environment happy-dom
import { MantineProvider } from "@mantine/core";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { QueryBox, type QueryError } from "../../src/web/pages/explore/QueryBox.tsx";
import {
  applySuggestion,
  describeRange,
  effectiveQuery,
  isoToLocalInput,
  loadRecent,
  localInputToIso,
  MAX_RECENT,
  rangeBounds,
  readSavedSearches,
  RECENT_KEY,
  saveRecent,
  suggestFields,
  timeClause,
  tokenAt,
  withRecent,
  type SearchEntry,
} from "../../src/web/pages/explore/query.ts";

afterEach(cleanup);

const FIELDS = [
  { index: "events", name: "info", type: "text" },
  { index: "events", name: "tags.name", type: "text" },
  { index: "attributes", name: "tags.name", type: "text" },
  { index: "attributes", name: "type", type: "text" },
  { index: "attributes", name: "to_ids", type: "boolean" },
  { index: "events", name: "threat_level", type: "long" },
  { index: "attributes", name: "@timestamp", type: "date" },
  { index: "events", name: "@timestamp", type: "date" },
];

describe("Explore's time clause", () => {
  it("adds @timestamp:[now-X TO now] for each preset, nothing for all time", () => {
    for (const preset of ["15m", "1h", "24h", "7d", "30d", "90d", "1y"] as const) {
      expect(timeClause({ preset })).toBe(`@timestamp:[now-${preset} TO now]`);
    }
    expect(timeClause({ preset: "all" })).toBeNull();
  });

  it("writes absolute bounds in UTC, * for an open side, nothing when both are open", () => {
    expect(timeClause({ from: "2016-08-01T00:00:00.000Z", to: "2016-09-30T23:59:00.000Z" })).toBe("@timestamp:[2016-08-01T00:00:00.000Z TO 2016-09-30T23:59:00.000Z]");
    expect(timeClause({ from: "2016-08-01T00:00:00.000Z", to: null })).toBe("@timestamp:[2016-08-01T00:00:00.000Z TO *]");
    expect(timeClause({ from: null, to: "2016-09-30T23:59:00.000Z" })).toBe("@timestamp:[* TO 2016-09-30T23:59:00.000Z]");
    expect(timeClause({ from: null, to: null })).toBeNull();
  });

  it("keeps the user's OR inside parentheses when the clause is added, and leaves the query alone without one", () => {
    expect(effectiveQuery("type:md5 OR type:sha1", { preset: "24h" })).toBe("(type:md5 OR type:sha1) AND @timestamp:[now-24h TO now]");
    expect(effectiveQuery("type:md5 OR type:sha1", { preset: "all" })).toBe("type:md5 OR type:sha1");
    expect(effectiveQuery("   ", { preset: "7d" })).toBe("@timestamp:[now-7d TO now]");
    expect(effectiveQuery("", { preset: "all" })).toBe("");
  });

  it("gives the histogram the instants a range covers, presets evaluated at the run", () => {
    const now = Date.parse("2026-01-02T00:00:00.000Z");
    expect(rangeBounds({ preset: "24h" }, now)).toEqual({ from: "2026-01-01T00:00:00.000Z", to: "2026-01-02T00:00:00.000Z" });
    expect(rangeBounds({ preset: "15m" }, now).from).toBe("2026-01-01T23:45:00.000Z");
    expect(rangeBounds({ preset: "1y" }, now).from).toBe("2025-01-02T00:00:00.000Z");
    expect(rangeBounds({ preset: "all" }, now)).toEqual({ from: null, to: null });
    expect(rangeBounds({ from: "2016-01-01T00:00:00.000Z", to: null }, now)).toEqual({ from: "2016-01-01T00:00:00.000Z", to: null });
  });

  it("reads datetime-local values as the browser's local time and writes them back", () => {
    const iso = localInputToIso("2016-08-01T10:30");
    expect(iso).toBe(new Date(2016, 7, 1, 10, 30).toISOString());
    expect(isoToLocalInput(iso)).toBe("2016-08-01T10:30");
    expect(localInputToIso("")).toBeNull();
    expect(localInputToIso("not a date")).toBeNull();
    expect(isoToLocalInput(null)).toBe("");
    expect(describeRange({ preset: "90d" })).toBe("Last 90 days");
    expect(describeRange({ from: "2016-08-01T10:30:00.000Z", to: null })).toBe("From 2016-08-01 10:30 UTC");
  });
});

describe("field-name completion", () => {
  it("completes the word at the cursor, prefix matches first, with types and indices", () => {
    expect(tokenAt("type:md5 AND ta", 15)).toEqual({ start: 13, word: "ta" });
    expect(tokenAt("NOT (-ta", 8)).toEqual({ start: 6, word: "ta" });
    const s = suggestFields(FIELDS, "type:md5 AND ta", 15);
    // Prefix matches first, then names holding the word (@times-ta-mp).
    expect(s.map((f) => f.name)).toEqual(["tags.name", "@timestamp"]);
    expect(s[0]!.detail).toBe("text (events, attributes)");
    expect(suggestFields(FIELDS, "t", 1).map((f) => f.name)).toEqual(["tags.name", "threat_level", "to_ids", "type", "@timestamp"]);
    expect(suggestFields(FIELDS, "@t", 2).map((f) => f.name)).toEqual(["@timestamp"]);
  });

  it("does not complete values, phrases, an exact name or an empty word", () => {
    expect(suggestFields(FIELDS, "type:ty", 7)).toEqual([]);
    expect(suggestFields(FIELDS, 'info:"the ty', 12)).toEqual([]);
    expect(suggestFields(FIELDS, "type", 4)).toEqual([]);
    expect(suggestFields(FIELDS, "type:md5 ", 9)).toEqual([]);
  });

  it("replaces the word with the field and a colon, keeping what follows", () => {
    expect(applySuggestion("type:md5 AND ta OR x", 15, "tags.name")).toEqual({ text: "type:md5 AND tags.name: OR x", cursor: 23 });
  });
});

describe("recent searches", () => {
  const entry = (query: string): SearchEntry => ({ query, time_range: { preset: "all" } });

  it("keeps the last 10, newest first, a repeated search moved to the front", () => {
    let list: SearchEntry[] = [];
    for (let i = 0; i < 12; i++) list = withRecent(list, entry(`q${i}`));
    expect(list).toHaveLength(MAX_RECENT);
    expect(list[0]!.query).toBe("q11");
    expect(list.at(-1)!.query).toBe("q2");
    list = withRecent(list, entry("q5"));
    expect(list.map((e) => e.query).slice(0, 3)).toEqual(["q5", "q11", "q10"]);
    expect(list.filter((e) => e.query === "q5")).toHaveLength(1);
    // The same query over another range is another search.
    expect(withRecent([entry("a")], { query: "a", time_range: { preset: "7d" } })).toHaveLength(2);
  });

  it("survives storage: written and read back, garbage left out", () => {
    const list = [entry("a"), { query: "b", time_range: { from: "2016-01-01T00:00:00.000Z", to: null } }];
    saveRecent(localStorage, list);
    expect(loadRecent(localStorage)).toEqual(list);
    localStorage.setItem(RECENT_KEY, JSON.stringify([{ query: 1 }, { query: "ok", time_range: { preset: "2h" } }, { query: "x", time_range: { preset: "1h" } }, null]));
    expect(loadRecent(localStorage)).toEqual([{ query: "x", time_range: { preset: "1h" } }]);
    localStorage.setItem(RECENT_KEY, "{not json");
    expect(loadRecent(localStorage)).toEqual([]);
  });
});

describe("saved searches", () => {
  it("reads the UI's entries and the peer's bare query strings, and skips malformed ones", () => {
    expect(
      readSavedSearches({
        saved_searches: ["value:8.8.8.8", { name: "N", query: "q", time_range: { preset: "24h" } }, { name: "no range", query: "q" }, 3],
      }),
    ).toEqual([
      { name: "value:8.8.8.8", query: "value:8.8.8.8", time_range: { preset: "all" } },
      { name: "N", query: "q", time_range: { preset: "24h" } },
    ]);
    expect(readSavedSearches(null)).toEqual([]);
  });
});

describe("the query box", () => {
  function Box({ error, onSubmit = () => undefined }: { error: QueryError | null; onSubmit?: () => void }) {
    const [value, setValue] = useState("type:domain OR ) value:x");
    return (
      <MantineProvider>
        <QueryBox value={value} onChange={setValue} onSubmit={onSubmit} fields={FIELDS} error={error} />
      </MantineProvider>
    );
  }

  it("shows the parser's message and marks the character where it failed, caret selected there", () => {
    render(<Box error={{ message: "Unexpected ')' without matching '('", offset: 15 }} />);
    const input = screen.getByRole("combobox", { name: "Query" }) as HTMLInputElement;
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(screen.getByText("Unexpected ')' without matching '('")).toBeTruthy();
    expect(screen.getByTestId("query-error-mark").textContent).toBe(")");
    expect(screen.getByText("The query fails at character 16:")).toBeTruthy();
    expect([input.selectionStart, input.selectionEnd]).toEqual([15, 16]);
  });

  it("marks the end of a query that stops too early, and nothing without an error", () => {
    render(<Box error={{ message: "missing closing ')'", offset: 99 }} />);
    expect(screen.getByTestId("query-error-mark").textContent).toBe("\u2038");
    expect(screen.getByText("The query ends too early:")).toBeTruthy();
    cleanup();
    render(<Box error={null} />);
    expect(screen.queryByTestId("query-error-mark")).toBeNull();
  });

  it("runs the search on Enter", () => {
    let runs = 0;
    render(<Box error={null} onSubmit={() => runs++} />);
    fireEvent.keyDown(screen.getByRole("combobox", { name: "Query" }), { key: "Enter", code: "Enter" });
    expect(runs).toBe(1);
  });
});
