import { Box, Group, Text } from "@mantine/core";
import { useElementSize } from "@mantine/hooks";
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { chartData, type ChartRun } from "./history-chart.ts";

const LINE = "#364fc7"; // indigo 8
const MARK = "#c92a2a"; // red 9

/** Match counts per run over time, runs with new hits marked; the summary is its accessible name. */
export function HuntHistoryChart({ runs }: { runs: readonly ChartRun[] }) {
  const { ref: box, width } = useElementSize();
  const target = useRef<HTMLDivElement>(null);
  const data = chartData(runs);

  useEffect(() => {
    if (!target.current || width === 0 || data.x.length === 0) return;
    const opts: uPlot.Options = {
      width: Math.floor(width),
      height: 220,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      // One run (or runs at one instant) still gets a readable hour either side.
      scales: { x: { time: true, range: (_u, min, max) => (max - min < 60 ? [min - 3600, max + 3600] : [min, max]) }, y: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.1] } },
      axes: [{}, { label: "Matches", size: 50 }],
      series: [
        {},
        { label: "Matches", stroke: LINE, width: 2, points: { show: true, size: 5 } },
        { label: "New hits", stroke: MARK, fill: MARK, width: 0, paths: () => null, points: { show: true, size: 11, stroke: MARK, fill: MARK } },
      ],
    };
    const plot = new uPlot(opts, [data.x, data.counts, data.newHits], target.current);
    return () => plot.destroy();
    // Rebuilt when the runs or the width change (`data` is derived from the runs).
  }, [runs, width]);

  if (data.x.length === 0) return <Text c="dimmed">No runs yet: run the hunt to start its history.</Text>;
  return (
    <Box ref={box}>
      <div ref={target} role="img" aria-label={data.summary} data-testid="hunt-history-chart" />
      <Group gap="md" mt={4} aria-hidden="true">
        <Text size="sm">
          <span style={{ color: LINE }}>━</span> matches per run
        </Text>
        <Text size="sm">
          <span style={{ color: MARK }}>●</span> run with new hits
        </Text>
      </Group>
    </Box>
  );
}
