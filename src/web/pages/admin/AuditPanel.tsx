import { Button, Code, Group, NativeSelect, SimpleGrid, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { useState, type FormEvent } from "react";
import { useQuery } from "urql";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { Pager } from "../../components/Pager.tsx";
import { Timestamp } from "../../components/Timestamp.tsx";
import { TableScroll } from "../../components/TableScroll.tsx";
import { graphql } from "../../gql/index.ts";
import type { AuditActorType } from "../../gql/graphql.ts";

const PAGE_SIZE = 50;

const Audit = graphql(`
  query AuditLog($page: Int!, $size: Int!, $action: String, $actorType: AuditActorType, $actorUserId: Int, $dateFrom: DateTime, $dateTo: DateTime, $resourceType: String) {
    auditLogs(page: $page, size: $size, action: $action, actorType: $actorType, actorUserId: $actorUserId, dateFrom: $dateFrom, dateTo: $dateTo, resourceType: $resourceType) {
      total
      page
      pages
      items {
        id
        createdAt
        action
        actorType
        actorUserId
        actorEmail
        ipAddress
        resourceType
        resourceId
        metadata
      }
    }
  }
`);

interface Filters {
  action: string;
  actorType: AuditActorType | "";
  actorUserId: string;
  dateFrom: string;
  dateTo: string;
  resourceType: string;
}

const NO_FILTERS: Filters = { action: "", actorType: "", actorUserId: "", dateFrom: "", dateTo: "", resourceType: "" };

/** The audit log, newest first, with its filters applied on the server. */
export function AuditPanel() {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const iso = (local: string) => (local ? new Date(local).toISOString() : null);
  const userId = Number(filters.actorUserId);
  const [{ data, fetching, error }] = useQuery({
    query: Audit,
    variables: {
      page,
      size: PAGE_SIZE,
      action: filters.action || null,
      actorType: filters.actorType || null,
      actorUserId: filters.actorUserId && Number.isInteger(userId) ? userId : null,
      dateFrom: iso(filters.dateFrom),
      dateTo: iso(filters.dateTo),
      resourceType: filters.resourceType || null,
    },
  });
  const set = (patch: Partial<Filters>) => setDraft((d) => ({ ...d, ...patch }));

  function apply(e: FormEvent) {
    e.preventDefault();
    setFilters(draft);
    setPage(1);
  }

  const log = data?.auditLogs;
  return (
    <Stack gap="md">
      <Title order={2} size="h3">
        Audit log
      </Title>
      <form onSubmit={apply} aria-label="Audit log filters">
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
          <TextInput label="Action" placeholder="api_key.created" value={draft.action} onChange={(e) => set({ action: e.currentTarget.value })} />
          <NativeSelect
            label="Actor type"
            data={[
              { value: "", label: "Any actor" },
              { value: "USER", label: "User" },
              { value: "API_KEY", label: "API key" },
              { value: "SYSTEM", label: "System" },
            ]}
            value={draft.actorType}
            onChange={(e) => set({ actorType: e.currentTarget.value as AuditActorType | "" })}
          />
          <TextInput label="Actor user id" inputMode="numeric" value={draft.actorUserId} onChange={(e) => set({ actorUserId: e.currentTarget.value })} />
          <TextInput label="Resource type" placeholder="api_key" value={draft.resourceType} onChange={(e) => set({ resourceType: e.currentTarget.value })} />
          <TextInput label="From" type="datetime-local" value={draft.dateFrom} onChange={(e) => set({ dateFrom: e.currentTarget.value })} />
          <TextInput label="To" type="datetime-local" value={draft.dateTo} onChange={(e) => set({ dateTo: e.currentTarget.value })} />
        </SimpleGrid>
        <Group mt="sm">
          <Button type="submit">Apply filters</Button>
          <Button variant="default" onClick={() => (setDraft(NO_FILTERS), setFilters(NO_FILTERS), setPage(1))}>
            Clear filters
          </Button>
        </Group>
      </form>
      {error && <ErrorAlert error={error} title="The audit log could not be loaded" />}
      {!log && fetching && <Busy label="Loading the audit log" />}
      {log && log.total === 0 && <Text c="dimmed">No audit entries match.</Text>}
      {log && log.items.length > 0 && (
        <TableScroll minWidth={900} label="Audit entries table">
          <Table striped aria-busy={fetching}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>When</Table.Th>
                <Table.Th>Action</Table.Th>
                <Table.Th>Actor</Table.Th>
                <Table.Th>IP address</Table.Th>
                <Table.Th>Resource</Table.Th>
                <Table.Th>Details</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {log.items.map((a) => (
                <Table.Tr key={a.id}>
                  <Table.Td>
                    <Timestamp value={a.createdAt} />
                  </Table.Td>
                  <Table.Td>{a.action}</Table.Td>
                  <Table.Td>
                    {a.actorEmail ?? (a.actorUserId !== null ? `user ${a.actorUserId}` : "—")} ({a.actorType})
                  </Table.Td>
                  <Table.Td>{a.ipAddress ?? "—"}</Table.Td>
                  <Table.Td>{a.resourceType ? `${a.resourceType}${a.resourceId !== null ? ` ${a.resourceId}` : ""}` : "—"}</Table.Td>
                  <Table.Td>{a.metadata ? <Code style={{ wordBreak: "break-all" }}>{JSON.stringify(a.metadata)}</Code> : "—"}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
      {log && log.total > 0 && <Pager page={page} pages={log.pages} total={log.total} onChange={setPage} noun="audit entries" nameButtons />}
    </Stack>
  );
}
