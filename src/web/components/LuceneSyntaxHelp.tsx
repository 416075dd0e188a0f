import { Button, Code, Collapse, Table, Text } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useId } from "react";

const EXAMPLES: [string, string][] = [
  ["value:evil.example", "A field equals a value"],
  ['info:"spear phishing"', "A phrase"],
  ["type:ip-dst AND to_ids:true", "Both must hold (AND, OR, NOT in capitals)"],
  ["type:domain OR type:hostname", "Either may hold; group with ( )"],
  ["value:*.example.com", "Wildcards: * any characters, ? one"],
  ["tags.name:tlp\\:amber", "Escape : and other special characters with \\"],
  ["@timestamp:[now-7d TO now]", "A range, inclusive [ ] or exclusive { }"],
  ["value:evl~", "Fuzzy: close spellings (~1 or ~2 edits)"],
  ["_exists_:comment", "The field has a value"],
  ["NOT deleted:true", "Leave matches out"],
];

/** Lucene query syntax in short, shown under a query box (Explore, hunts). */
export function LuceneSyntaxHelp() {
  const [opened, { toggle }] = useDisclosure(false);
  const id = useId();
  return (
    <div>
      <Button variant="subtle" size="compact-sm" onClick={toggle} aria-expanded={opened} aria-controls={id}>
        {opened ? "Hide query syntax help" : "Query syntax help"}
      </Button>
      <Collapse expanded={opened} id={id}>
      <Table.ScrollContainer minWidth={340} type="native" tabIndex={0} role="region" aria-label="Query syntax examples">
        <Table fz="sm" verticalSpacing={4}>
          <Table.Tbody>
            {EXAMPLES.map(([query, meaning]) => (
              <Table.Tr key={query}>
                <Table.Td>
                  <Code>{query}</Code>
                </Table.Td>
                <Table.Td>{meaning}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Text size="sm" c="dimmed">
        Fields are those of the index searched: attributes (value, type, category, event_uuid, tags.name…), events (info, org, tags.name…) or correlations.
      </Text>
      </Collapse>
    </div>
  );
}
