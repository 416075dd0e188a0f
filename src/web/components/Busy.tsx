import { Center, Loader } from "@mantine/core";

/** The loading state of a page or section: announced to screen readers by what is loading. */
export function Busy({ label, minHeight = 200 }: { label: string; minHeight?: number | string }) {
  return (
    <Center mih={minHeight}>
      <Loader role="status" aria-label={label} />
    </Center>
  );
}
