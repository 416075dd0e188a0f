import { Group, NativeSelect, TextInput } from "@mantine/core";
import { isAbsolute, isoToLocalInput, localInputToIso, TIME_PRESETS, type TimePreset, type TimeRange } from "./query.ts";

const ABSOLUTE = "absolute";

/** A preset relative to now, all time, or an absolute from/to in the reader's time zone. */
export function TimeRangeControl({ value, onChange }: { value: TimeRange; onChange(range: TimeRange): void }) {
  const mode = isAbsolute(value) ? ABSOLUTE : value.preset;
  return (
    <Group gap="xs" align="flex-end" wrap="wrap">
      <NativeSelect
        label="Time range"
        value={mode}
        onChange={(e) => {
          const next = e.currentTarget.value;
          onChange(next === ABSOLUTE ? { from: null, to: null } : { preset: next as TimePreset | "all" });
        }}
        data={[...TIME_PRESETS, { value: "all", label: "All time" }, { value: ABSOLUTE, label: "Absolute range" }]}
      />
      {isAbsolute(value) && (
        <>
          <TextInput
            type="datetime-local"
            label="From"
            value={isoToLocalInput(value.from)}
            max={isoToLocalInput(value.to) || undefined}
            onChange={(e) => onChange({ from: localInputToIso(e.currentTarget.value), to: value.to })}
          />
          <TextInput
            type="datetime-local"
            label="To"
            value={isoToLocalInput(value.to)}
            min={isoToLocalInput(value.from) || undefined}
            onChange={(e) => onChange({ from: value.from, to: localInputToIso(e.currentTarget.value) })}
          />
        </>
      )}
    </Group>
  );
}
