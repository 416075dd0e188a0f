import { Code, Group, NativeSelect, Stack, Text, TextInput } from "@mantine/core";
import { composeCpe, CPE_PARTS, cpeProblem, type CpeFields, type CpePart } from "./cpe.ts";

/** Part, vendor, product and version fields composing the hunt's cpe:2.3 name, shown as it is built. */
export function CpeBuilder({ value, onChange, showProblem }: { value: CpeFields; onChange(next: CpeFields): void; showProblem: boolean }) {
  const set = (patch: Partial<CpeFields>) => onChange({ ...value, ...patch });
  const problem = showProblem ? cpeProblem(value) : null;
  return (
    <Stack gap="xs">
      <Group grow align="flex-start" wrap="wrap" preventGrowOverflow={false}>
        <NativeSelect
          label="Part"
          miw={180}
          value={value.part}
          onChange={(e) => set({ part: e.currentTarget.value as CpePart | "" })}
          data={[{ value: "", label: "Choose…" }, ...CPE_PARTS]}
          error={problem && !value.part ? problem : undefined}
        />
        <TextInput label="Vendor" miw={160} placeholder="paloaltonetworks" value={value.vendor} onChange={(e) => set({ vendor: e.currentTarget.value })} error={problem && value.part ? problem : undefined} />
        <TextInput label="Product" miw={160} placeholder="pan-os (empty: any)" value={value.product} onChange={(e) => set({ product: e.currentTarget.value })} />
        <TextInput label="Version" miw={120} placeholder="10.2.9 (empty: any)" value={value.version} onChange={(e) => set({ version: e.currentTarget.value })} />
      </Group>
      <Text size="sm">
        CPE 2.3 name:{" "}
        <Code data-testid="cpe-string" style={{ wordBreak: "break-all" }}>
          {composeCpe(value)}
        </Code>
      </Text>
      <Text size="sm" c="dimmed">
        Empty fields match any value; * and ? at the start or end of a field are wildcards.
      </Text>
    </Stack>
  );
}
