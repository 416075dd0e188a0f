import { Table } from "@mantine/core";
import type { ReactNode } from "react";

/**
 * A table that scrolls sideways on narrow screens. The scrolling area takes the keyboard focus (so
 * it can be scrolled without a mouse) and is a named region saying what it holds.
 */
export function TableScroll({ minWidth, label, children }: { minWidth: number; label: string; children: ReactNode }) {
  return (
    <Table.ScrollContainer minWidth={minWidth} scrollAreaProps={{ viewportProps: { tabIndex: 0, role: "region", "aria-label": label } }}>
      {children}
    </Table.ScrollContainer>
  );
}
