import { Badge, Button, Group, Select, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useState } from "react";
import { useQuery } from "urql";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { Pager } from "../../components/Pager.tsx";
import { graphql } from "../../gql/index.ts";
import { AttributeFormModal, type EditableAttribute } from "./AttributeFormModal.tsx";
import { typesFor, useCatalogue } from "./catalogue.ts";
import { SightingsModal } from "./SightingsModal.tsx";
import { TagBadge } from "./TagBadge.tsx";

const PAGE_SIZE = 25;

const AttributesQuery = graphql(`
  query EventAttributes($eventUuid: String!, $page: Int, $size: Int, $type: String, $category: String, $value: String) {
    attributes(eventUuid: $eventUuid, page: $page, size: $size, type: $type, category: $category, value: $value, deleted: false) {
      total
      page
      pages
      items {
        uuid
        type
        category
        value
        toIds
        comment
        distribution
        tags {
          id
          name
          colour
        }
      }
    }
  }
`);

/** The event's standalone attributes, paged and filtered (value, category, type) on the server. */
export function AttributesSection({ eventUuid, canWrite, canSight }: { eventUuid: string; canWrite: boolean; canSight: boolean }) {
  const [page, setPage] = useState(1);
  const [type, setType] = useState<string | null>(null);
  const [category, setCategory] = useState<string | null>(null);
  const [value, setValue] = useState("");
  const [debouncedValue] = useDebouncedValue(value.trim(), 300);
  const { catalogue } = useCatalogue();
  const [{ data, fetching, error }, refetch] = useQuery({
    query: AttributesQuery,
    variables: { eventUuid, page, size: PAGE_SIZE, type: type ?? undefined, category: category ?? undefined, value: debouncedValue || undefined },
  });
  const filtered = <T,>(set: (v: T) => void) => (v: T) => {
    set(v);
    setPage(1);
  };
  const filteredBy = type || category || debouncedValue;
  const [editing, setEditing] = useState<EditableAttribute | "new" | null>(null);
  const [sighting, setSighting] = useState<{ uuid: string; value: string } | null>(null);
  const attributes = data?.attributes;

  return (
    <Stack gap="xs" component="section" aria-labelledby="event-attributes">
      <Group justify="space-between" align="end" wrap="wrap">
        <Title order={2} size="h4" id="event-attributes">
          Attributes
        </Title>
        <Group gap="sm" align="end" wrap="wrap">
          <TextInput label="Attribute value" placeholder="Part of the value" value={value} onChange={(e) => filtered(setValue)(e.currentTarget.value)} w={200} />
          <Select
            label="Attribute category"
            placeholder="Any category"
            data={catalogue?.categories.map((c) => c.name) ?? []}
            value={category}
            onChange={(c) => {
              filtered(setCategory)(c);
              if (catalogue && type && c && !typesFor(catalogue, c).includes(type)) setType(null);
            }}
            searchable
            clearable
            w={200}
          />
          <Select
            label="Attribute type"
            placeholder="Any type"
            data={catalogue ? typesFor(catalogue, category) : []}
            value={type}
            onChange={filtered(setType)}
            searchable
            clearable
            w={200}
          />
          {canWrite && <Button onClick={() => setEditing("new")}>Add attribute</Button>}
        </Group>
      </Group>
      {error && <ErrorAlert error={error} title="The attributes could not be loaded" />}
      {!attributes && fetching && <Busy label="Loading attributes" minHeight={100} />}
      {attributes && attributes.total === 0 && <Text c="dimmed" size="sm">{filteredBy ? "No attribute matches these filters." : "No attribute."}</Text>}
      {attributes && attributes.total > 0 && (
        <>
          <Table.ScrollContainer minWidth={860}>
            <Table striped aria-label="Attributes" verticalSpacing={6}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Value</Table.Th>
                  <Table.Th>Type</Table.Th>
                  <Table.Th>Category</Table.Th>
                  <Table.Th>IDS</Table.Th>
                  <Table.Th>Comment</Table.Th>
                  <Table.Th>Actions</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {attributes.items.map((a) => (
                  <Table.Tr key={a.uuid}>
                    <Table.Td maw={320} style={{ overflowWrap: "anywhere" }}>
                      {/* Long values (rules, reports) are clamped; the whole value is the element's title. */}
                      <Text size="sm" ff="monospace" lineClamp={6} title={a.value}>
                        {a.value}
                      </Text>
                      {a.tags.length > 0 && (
                        <Group gap={4} mt={4}>
                          {a.tags.map((t) => (
                            <TagBadge key={t.id} name={t.name} colour={t.colour} />
                          ))}
                        </Group>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Badge variant="outline" color="indigo.9" tt="none">
                        {a.type}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      <Badge variant="outline" color="teal.9" tt="none">
                        {a.category}
                      </Badge>
                    </Table.Td>
                    <Table.Td>{a.toIds ? <Badge color="red.9">yes</Badge> : <Text size="sm">no</Text>}</Table.Td>
                    <Table.Td maw={240} style={{ overflowWrap: "anywhere" }}>
                      <Text size="sm" lineClamp={4} title={a.comment}>
                        {a.comment}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Group gap={4} wrap="nowrap">
                        <Button size="compact-xs" variant="default" onClick={() => setSighting({ uuid: a.uuid, value: a.value })} aria-label={`Sightings of ${a.value}`}>
                          Sightings
                        </Button>
                        {canWrite && (
                          <Button size="compact-xs" variant="default" onClick={() => setEditing(a)} aria-label={`Edit attribute ${a.value}`}>
                            Edit
                          </Button>
                        )}
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <Pager page={attributes.page} pages={attributes.pages} total={attributes.total} onChange={setPage} noun="attributes" nameButtons />
        </>
      )}
      {editing && (
        <AttributeFormModal
          eventUuid={eventUuid}
          attribute={editing === "new" ? undefined : editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            refetch({ requestPolicy: "network-only" });
          }}
        />
      )}
      {sighting && <SightingsModal attribute={sighting} canSight={canSight} onClose={() => setSighting(null)} />}
    </Stack>
  );
}
