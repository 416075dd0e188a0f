import { Badge } from "@mantine/core";
import type { ReactNode } from "react";
import type { TaskRunStatus } from "../gql/graphql.ts";

/** Filled dark shades: white text on them meets WCAG AA, on striped rows too (light badges do not). */
const COLORS = { neutral: "gray.7", info: "blue.8", good: "teal.9", bad: "red.9", warn: "grape.8" } as const;

export type Tone = keyof typeof COLORS;

/** A short state word (succeeded, disabled, default...) as a badge. */
export function StateBadge({ tone, children }: { tone: Tone; children: ReactNode }) {
  return (
    <Badge color={COLORS[tone]} variant="filled" tt="none" style={{ minWidth: "max-content" }}>
      {children}
    </Badge>
  );
}

/** A task run's state as a badge tone. */
export const RUN_TONE: Record<TaskRunStatus, Tone> = { QUEUED: "neutral", RUNNING: "info", SUCCEEDED: "good", FAILED: "bad", CANCELLED: "warn" };
