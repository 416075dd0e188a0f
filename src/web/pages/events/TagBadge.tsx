import { Badge, ColorSwatch } from "@mantine/core";

/**
 * A tag with its colour as a swatch beside dark text: a tag's own colour can be anything, so it
 * never carries the text (which keeps the contrast readable whatever the colour).
 */
export function TagBadge({ name, colour }: { name: string; colour?: string | null }) {
  return (
    <Badge
      variant="outline"
      color="gray.8"
      radius="sm"
      tt="none"
      fw={500}
      maw="100%"
      leftSection={colour ? <ColorSwatch color={colour} size={10} aria-hidden="true" /> : undefined}
    >
      {name}
    </Badge>
  );
}
