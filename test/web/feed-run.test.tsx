// @vitest-environment happy-dom
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { MantineProvider } from "@mantine/core";
import { Client, fetchExchange, Provider } from "urql";
import { afterEach, describe, expect, it } from "vitest";
import { RunProgress, runSummary } from "../../src/web/pages/feeds/RunProgress.tsx";

afterEach(cleanup);

type State = { status: string; progress?: Record<string, number> | null; result?: Record<string, number> | null; lastError?: string | null };

/** The API as a script: each taskRun request answers the next state (the last one repeats); it counts the requests. */
function scriptedApi(states: State[]) {
  const seen = { requests: 0 };
  const client = new Client({
    url: "http://workbench.test/graphql",
    exchanges: [fetchExchange],
    fetch: async () => {
      const s = states[Math.min(seen.requests, states.length - 1)];
      seen.requests++;
      const taskRun = { id: "run-1", status: s.status, progress: s.progress ?? null, result: s.result ?? null, lastError: s.lastError ?? null, startedAt: null, finishedAt: null };
      return new Response(JSON.stringify({ data: { taskRun } }), { headers: { "content-type": "application/json" } });
    },
  });
  return { client, seen };
}

function show(client: Client, onFinished: () => void) {
  render(
    <MantineProvider>
      <Provider value={client}>
        <RunProgress runId="run-1" onFinished={onFinished} />
      </Provider>
    </MantineProvider>,
  );
}

describe("a feed run followed live", () => {
  it("reads the run every second while it runs, shows its progress, then stops and says it finished once", async () => {
    const counts = { rows: 4, events_created: 4, events_updated: 0, events_unchanged: 0, attributes_created: 66, rejected: 0 };
    const { client, seen } = scriptedApi([{ status: "QUEUED" }, { status: "RUNNING", progress: { ...counts, events_created: 2, rows: 2 } }, { status: "SUCCEEDED", result: counts }]);
    let finished = 0;
    show(client, () => finished++);

    await waitFor(() => expect(screen.getByText("running")).toBeTruthy(), { timeout: 3000 });
    expect(screen.getByRole("progressbar", { name: "Fetch progress" })).toBeTruthy();
    await waitFor(() => expect(screen.getByText("succeeded")).toBeTruthy(), { timeout: 3000 });
    expect(screen.queryByRole("progressbar")).toBeNull();
    const created = screen.getByText("Attributes created").nextElementSibling;
    expect(created?.textContent).toBe("66");
    // onFinished runs in an effect after the render that shows "succeeded".
    await waitFor(() => expect(finished).toBe(1));

    // Finished: no more reads.
    const after = seen.requests;
    await new Promise((r) => setTimeout(r, 2200));
    expect(seen.requests).toBe(after);
    expect(finished).toBe(1);
  });

  it("shows a failed run's error as an alert", async () => {
    const { client } = scriptedApi([{ status: "FAILED", lastError: "The feed's manifest.json is missing" }]);
    show(client, () => undefined);
    await waitFor(() => expect(screen.getByRole("alert").textContent).toContain("The feed's manifest.json is missing"));
    expect(screen.getByText("failed")).toBeTruthy();
  });

  it("sums a finished run up in one line, leaving out zeros", () => {
    expect(runSummary({ feed_id: 3, rows: 4, events_created: 4, attributes_created: 66, rejected: 0, not_modified: false })).toBe("Rows read: 4 · Events created: 4 · Attributes created: 66");
    expect(runSummary({ rows: 0 })).toBe("Nothing read");
  });
});
