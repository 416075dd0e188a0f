// @vitest-environment happy-dom
import { MantineProvider } from "@mantine/core";
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { LookupResults } from "../../src/web/pages/explore/BulkLookup.tsx";
import { combine, describeSeries } from "../../src/web/pages/explore/histogram-series.ts";
import { problemOf, valuesOf } from "../../src/web/pages/explore/lookup-input.ts";

afterEach(cleanup);

const found = {
  input: "hxxp://evil[.]com",
  value: "http://evil.com",
  detectedType: "url",
  found: true,
  count: 3,
  eventCount: 7,
  types: ["url", "link"],
  firstSeen: "2021-03-04T05:06:07.000Z",
  lastSeen: "2024-01-01T00:00:00.000Z",
  events: [{ uuid: "6f0c1a8e-0000-4000-8000-000000000001", info: "Phishing <script>", organisation: "CIRCL" }],
};
const absent = { ...found, input: "nope.example", value: "nope.example", detectedType: "domain", found: false, count: 0, eventCount: 0, types: [], firstSeen: null, lastSeen: null, events: [] };

describe("bulk lookup results", () => {
  it("shows each value refanged with its badge, event links, types and dates, and filters found / not found", () => {
    render(
      <MantineProvider>
        <LookupResults answers={[found, absent]} />
      </MantineProvider>,
    );
    expect(screen.getByTestId("lookup-summary").textContent).toBe("1 of 2 found");
    const rows = screen.getAllByRole("row").slice(1);
    expect(rows).toHaveLength(2);
    const first = within(rows[0]!);
    expect(first.getByText("http://evil.com")).toBeTruthy();
    expect(first.getByText("given as hxxp://evil[.]com")).toBeTruthy();
    expect(first.getByText("Found")).toBeTruthy();
    // The event's title as text (never markup), linking to its page, and how many more events hold the value.
    expect(first.getByRole("link", { name: "Phishing <script>" }).getAttribute("href")).toBe("/events/6f0c1a8e-0000-4000-8000-000000000001");
    expect(first.getByText("and 6 more events")).toBeTruthy();
    expect(first.getByText("url, link")).toBeTruthy();
    expect(rows[0]!.querySelector("time")?.getAttribute("datetime")).toBe("2021-03-04T05:06:07.000Z");
    const second = within(rows[1]!);
    expect(second.getByText("Not found")).toBeTruthy();
    expect(second.queryByText(/given as/)).toBeNull();

    fireEvent.click(screen.getByRole("radio", { name: "Not found" }));
    expect(screen.getAllByRole("row").slice(1).map((r) => r.textContent)).toEqual([expect.stringContaining("nope.example")]);
  });

  it("pages long answers 50 at a time", () => {
    const many = Array.from({ length: 120 }, (_, i) => ({ ...absent, input: `v${i}.example`, value: `v${i}.example` }));
    render(
      <MantineProvider>
        <LookupResults answers={many} />
      </MantineProvider>,
    );
    expect(screen.getAllByRole("row")).toHaveLength(51);
    fireEvent.click(screen.getByRole("button", { name: "Next page of indicators" }));
    fireEvent.click(screen.getByRole("button", { name: "Next page of indicators" }));
    expect(screen.getAllByRole("row")).toHaveLength(21);
  });

  it("reads pasted text as values and refuses what the API would", () => {
    expect(valuesOf(" a \r\n\nb\na\n")).toEqual(["a", "b"]);
    expect(problemOf([])).toBe("Paste at least one indicator.");
    expect(problemOf(Array.from({ length: 1001 }, (_, i) => String(i)))).toBe("At most 1,000 indicators at once (1,001 given).");
    expect(problemOf(["ok", "x".repeat(1025)])).toBe("Indicator 2 is longer than 1,024 characters.");
    expect(problemOf(["a\u0000b"])).toBe("Indicators must not contain NUL characters.");
    expect(problemOf(["x".repeat(1024)])).toBeNull();
  });
});

describe("histogram series", () => {
  const h = (index: string, from: string, buckets: [string, number][]) => ({
    index,
    interval: "1d",
    from,
    to: "2024-01-03T12:00:00.000Z",
    total: buckets.reduce((n, [, c]) => n + c, 0),
    buckets: buckets.map(([start, count]) => ({ start, count })),
  });

  it("puts both indices on one axis, a bucket one index lacks as a gap, and says it in words", () => {
    const s = combine(h("events", "2024-01-01T00:00:00.000Z", [["2024-01-01T00:00:00.000Z", 2], ["2024-01-02T00:00:00.000Z", 0]]), h("attributes", "2024-01-02T00:00:00.000Z", [["2024-01-02T00:00:00.000Z", 5], ["2024-01-03T00:00:00.000Z", 1]]))!;
    expect(s.xs).toEqual([1704067200, 1704153600, 1704240000]);
    expect(s.events).toEqual([2, 0, null]);
    expect(s.attributes).toEqual([null, 5, 1]);
    expect([s.eventTotal, s.attributeTotal, s.from]).toEqual([2, 6, "2024-01-01T00:00:00.000Z"]);
    expect(describeSeries(s, { events: true, attributes: true })).toMatch(/^Matches over time: 2 events, 6 attributes between Jan 1, 2024, .+ and Jan 3, 2024, .+, per day$/);
    expect(describeSeries(combine(null, h("attributes", "2024-01-02T00:00:00.000Z", [["2024-01-02T00:00:00.000Z", 1]]))!, { events: false, attributes: true })).toMatch(/^Matches over time: 1 attribute between/);
    expect(combine(null, null)).toBeNull();
  });
});
