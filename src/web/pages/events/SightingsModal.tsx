import { Button, Group, Modal, Select, Stack, Table, Text, TextInput } from "@mantine/core";
import { useState } from "react";
import { useMutation, useQuery } from "urql";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { Pager } from "../../components/Pager.tsx";
import { graphql } from "../../gql/index.ts";
import { fieldErrors } from "../../lib/field-errors.ts";

const SightingsQuery = graphql(`
  query AttributeSightings($attributeUuid: String!, $page: Int) {
    sightings(attributeUuid: $attributeUuid, page: $page, size: 10) {
      total
      page
      pages
      items {
        uuid
        type
        source
        timestamp
        organisation
      }
    }
  }
`);
const AddSighting = graphql(`
  mutation AddSighting($input: [SightingInput!]!) {
    createSightings(input: $input) {
      created
    }
  }
`);

const TYPES = [
  { value: "sighting", label: "Sighting" },
  { value: "false-positive", label: "False positive" },
  { value: "expiration", label: "Expiration" },
];

/** An attribute's sightings (paged by the server) and a form to add one. */
export function SightingsModal({ attribute, canSight, onClose }: { attribute: { uuid: string; value: string }; canSight: boolean; onClose(): void }) {
  const [page, setPage] = useState(1);
  const [{ data, fetching, error }, refetch] = useQuery({ query: SightingsQuery, variables: { attributeUuid: attribute.uuid, page } });
  const [added, add] = useMutation(AddSighting);
  const [type, setType] = useState<string | null>("sighting");
  const [source, setSource] = useState("");
  const errors = fieldErrors(added.error);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    const res = await add({ input: [{ attributeUuid: attribute.uuid, type: type ?? "sighting", source: source || undefined }] });
    if (!res.error) {
      setSource("");
      setPage(1);
      refetch({ requestPolicy: "network-only" });
    }
  }

  const sightings = data?.sightings;
  return (
    <Modal closeButtonProps={{ "aria-label": "Close the sightings" }} opened onClose={onClose} title={`Sightings of ${attribute.value}`} size="lg">
      <Stack gap="sm">
        {canSight && (
          <Group component="form" onSubmit={submit} align="end" gap="sm" wrap="wrap" aria-label="Add a sighting">
            <Select label="Sighting type" data={TYPES} value={type} onChange={setType} allowDeselect={false} w={170} error={errors.type} />
            <TextInput label="Source" placeholder="Where it was seen" value={source} onChange={(e) => setSource(e.currentTarget.value)} error={errors.source} />
            <Button type="submit" loading={added.fetching}>
              Add sighting
            </Button>
          </Group>
        )}
        {added.error && !Object.keys(errors).length && <ErrorAlert error={added.error} title="The sighting was not added" />}
        {error && <ErrorAlert error={error} title="The sightings could not be loaded" />}
        {!sightings && fetching && <Busy label="Loading sightings" minHeight={100} />}
        {sightings && sightings.total === 0 && <Text c="dimmed">No sighting yet.</Text>}
        {sightings && sightings.total > 0 && (
          <>
            <Table aria-label="Sightings">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>When</Table.Th>
                    <Table.Th>Type</Table.Th>
                    <Table.Th>Source</Table.Th>
                    <Table.Th>Organisation</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {sightings.items.map((s) => (
                    <Table.Tr key={s.uuid}>
                      <Table.Td>{new Date(s.timestamp * 1000).toLocaleString()}</Table.Td>
                      <Table.Td>{s.type}</Table.Td>
                      <Table.Td>{s.source || "—"}</Table.Td>
                      <Table.Td>{s.organisation ?? "—"}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
            </Table>
            <Pager page={sightings.page} pages={sightings.pages} total={sightings.total} onChange={setPage} noun="sightings" nameButtons />
          </>
        )}
      </Stack>
    </Modal>
  );
}
