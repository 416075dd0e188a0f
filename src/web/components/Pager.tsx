import { Button, Group, Text } from "@mantine/core";

interface PagerProps {
  page: number;
  pages: number;
  total: number;
  onChange(page: number): void;
  /** What is paged, plural ("hunts", "runs"): it names the buttons when a page has several pagers. */
  noun: string;
  /** Add the noun to the buttons' names ("Next page of runs"); the page's main list leaves it out. */
  nameButtons?: boolean;
}

/** Previous/next paging of a list the server pages, with where the user is. */
export function Pager({ page, pages, total, onChange, noun, nameButtons = false }: PagerProps) {
  const of = nameButtons ? ` of ${noun}` : "";
  return (
    <Group justify="space-between" gap="xs" wrap="wrap">
      <Text size="sm" c="dimmed" aria-live="polite">
        {total === 0 ? `No ${noun}` : `Page ${page} of ${Math.max(pages, 1)} · ${total} ${noun}`}
      </Text>
      <Group gap="xs">
        <Button variant="default" size="xs" disabled={page <= 1} onClick={() => onChange(page - 1)} aria-label={`Previous page${of}`}>
          Previous
        </Button>
        <Button variant="default" size="xs" disabled={page >= pages} onClick={() => onChange(page + 1)} aria-label={`Next page${of}`}>
          Next
        </Button>
      </Group>
    </Group>
  );
}
