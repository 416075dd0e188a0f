// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { MantineProvider } from "@mantine/core";
import { useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { CpeBuilder } from "../../src/web/pages/hunts/CpeBuilder.tsx";
import { composeCpe, cpeProblem, EMPTY_CPE, escapeCpeComponent, parseCpe, type CpeFields } from "../../src/web/pages/hunts/cpe.ts";
import { choiceOf, formatCron, parseCron, scheduleWrite } from "../../src/web/pages/hunts/schedule.ts";
import { prefillFrom } from "../../src/web/pages/hunts/hunt-types.ts";
import { chartData } from "../../src/web/pages/hunts/history-chart.ts";
import { validateCpe } from "../../src/platform/cpe.ts";

afterEach(cleanup);

function Builder({ start = EMPTY_CPE }: { start?: CpeFields }) {
  const [value, setValue] = useState(start);
  return (
    <MantineProvider>
      <CpeBuilder value={value} onChange={setValue} showProblem />
    </MantineProvider>
  );
}

describe("the CPE 2.3 builder", () => {
  it("composes the cpe:2.3 string as the fields are filled, leaving trailing empty fields out", () => {
    render(<Builder />);
    const shown = () => screen.getByTestId("cpe-string").textContent;
    expect(shown()).toBe("cpe:2.3:*:*");
    expect(screen.getByText(/Choose the part/)).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Part"), { target: { value: "o" } });
    fireEvent.change(screen.getByLabelText("Vendor"), { target: { value: "PaloAltoNetworks" } });
    expect(shown()).toBe("cpe:2.3:o:paloaltonetworks");
    fireEvent.change(screen.getByLabelText("Version"), { target: { value: "10.2.9" } });
    expect(shown()).toBe("cpe:2.3:o:paloaltonetworks:*:10.2.9");
    fireEvent.change(screen.getByLabelText("Product"), { target: { value: "pan-os" } });
    expect(shown()).toBe("cpe:2.3:o:paloaltonetworks:pan-os:10.2.9");
    expect(screen.queryByText(/Choose the part|Give the vendor/)).toBeNull();
  });

  it("escapes what a component may not hold bare, keeps edge wildcards, and the service accepts the result", () => {
    expect(escapeCpeComponent("C++ Builder")).toBe("c\\+\\+_builder");
    expect(escapeCpeComponent("*server?")).toBe("*server?");
    expect(escapeCpeComponent("a:b")).toBe("a\\:b");
    expect(escapeCpeComponent("'; DROP TABLE hunts; --")).toBe("\\'\\;_drop_table_hunts\\;_--");
    for (const f of [
      { part: "a", vendor: "Embarcadero", product: "C++ Builder", version: "10.4 Sydney", rest: [] },
      { part: "h", vendor: "cisco", product: "asa:5505", version: "*", rest: [] },
      { part: "o", vendor: "\"quoted\"", product: "", version: "1.0?", rest: [] },
    ] satisfies CpeFields[]) {
      expect(validateCpe(composeCpe(f)), composeCpe(f)).toBeNull();
    }
  });

  it("reads a stored CPE back into its fields, keeping components after the version", () => {
    const stored = "cpe:2.3:a:embarcadero:c\\+\\+_builder:10.4:*:*:en";
    const f = parseCpe(stored)!;
    expect(f).toEqual({ part: "a", vendor: "embarcadero", product: "c++_builder", version: "10.4", rest: ["*", "*", "en"] });
    expect(composeCpe(f)).toBe(stored);
    expect(parseCpe("cpe:/o:paloaltonetworks")).toBeNull();
    expect(parseCpe("cpe:2.3:x:vendor")).toBeNull();
    expect(cpeProblem({ ...EMPTY_CPE, part: "a" })).toMatch(/vendor/);
  });
});

describe("the schedule control's logic", () => {
  it("reads the hunt's schedule as a choice", () => {
    expect(["hourly", "daily", "weekly", "custom", null, "monthly"].map(choiceOf)).toEqual(["hourly", "daily", "weekly", "custom", "none", "none"]);
  });

  it("parses five cron fields and says what is wrong with anything else", () => {
    expect(parseCron(" 30 6 * * 1-5 ")).toEqual({ minute: "30", hour: "6", dayOfMonth: "*", monthOfYear: "*", dayOfWeek: "1-5" });
    expect(parseCron("*/15 * * * *")).toMatchObject({ minute: "*/15" });
    expect(parseCron("0 9,17 1 1,7 0")).toMatchObject({ hour: "9,17", monthOfYear: "1,7" });
    expect(parseCron("0 6 * *")).toEqual({ error: expect.stringMatching(/five fields/) });
    expect(parseCron("0 24 * * *")).toEqual({ error: "The hour field takes 0 to 23." });
    expect(parseCron("0 6 * * MON")).toEqual({ error: expect.stringMatching(/day of week field "MON"/) });
    expect(parseCron("0 6 * * 1; rm -rf /")).toMatchObject({ error: expect.any(String) });
    expect(formatCron({ minute: "30", hour: "6", dayOfMonth: "*", monthOfYear: "*", dayOfWeek: "1-5" })).toBe("30 6 * * 1-5");
  });

  it("writes a frequency or a cron line through the hunt, and nothing when the choice is what it is", () => {
    const cron = { minute: "0", hour: "6", dayOfMonth: "*", monthOfYear: "*", dayOfWeek: "1" };
    expect(scheduleWrite({ choice: "none", cron: null }, "daily")).toEqual({ schedule: "DAILY" });
    expect(scheduleWrite({ choice: "daily", cron: null }, "daily")).toBeNull();
    expect(scheduleWrite({ choice: "custom", cron: "0 6 * * 1" }, "hourly")).toEqual({ schedule: "HOURLY" });
    expect(scheduleWrite({ choice: "weekly", cron: null }, "none")).toEqual({ schedule: null });
    expect(scheduleWrite({ choice: "none", cron: null }, "none")).toBeNull();
    expect(scheduleWrite({ choice: "daily", cron: null }, "custom", cron)).toEqual({ cron: "0 6 * * 1" });
    expect(scheduleWrite({ choice: "custom", cron: "0 6 * * 1" }, "custom", cron)).toBeNull();
    expect(scheduleWrite({ choice: "custom", cron: "0 6 * * 1" }, "custom", { ...cron, hour: "7" })).toEqual({ cron: "0 7 * * 1" });
    expect(() => scheduleWrite({ choice: "daily", cron: null }, "custom")).toThrow();
  });
});

describe("the hunt form's prefill and the history chart's data", () => {
  it("reads Explore's save-as-hunt link", () => {
    const q = 'value:"evil.example" AND @timestamp:[now-7d TO now]';
    expect(prefillFrom(`?type=lucene&query=${encodeURIComponent(q)}`)).toEqual({ huntType: "SEARCH", query: q, indexTarget: "ATTRIBUTES", name: "" });
    expect(prefillFrom("?type=lucene&query=x&index=events")).toMatchObject({ indexTarget: "EVENTS" });
    expect(prefillFrom("?type=cpe&index=events")).toMatchObject({ huntType: "CPE", indexTarget: null });
    expect(prefillFrom("?type=<script>&index=nope")).toMatchObject({ huntType: "SEARCH", indexTarget: "ATTRIBUTES" });
  });

  it("draws runs oldest first, marks runs with new hits, and says so in words", () => {
    const d = chartData([
      { runAt: "2026-01-03T00:00:00Z", matchCount: 5, newHitCount: 2 },
      { runAt: "2026-01-02T00:00:00Z", matchCount: null, newHitCount: null },
      { runAt: "2026-01-01T00:00:00Z", matchCount: 3, newHitCount: 0 },
    ]);
    expect(d.x).toEqual([1767225600, 1767312000, 1767398400]);
    expect(d.counts).toEqual([3, null, 5]);
    expect(d.newHits).toEqual([null, null, 5]);
    expect(d.summary).toBe("Match counts of 3 runs; latest 5, lowest 3, highest 5; 1 run with new hits; 1 failed");
    expect(chartData([]).summary).toBe("No runs yet");
  });
});
