import { Button, Group, Stack, Switch, Table, Text, TextInput, Title } from "@mantine/core";
import { useState, type FormEvent } from "react";
import { useMutation, useQuery } from "urql";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { Pager } from "../../components/Pager.tsx";
import { StateBadge } from "../../components/StateBadge.tsx";
import { TableScroll } from "../../components/TableScroll.tsx";
import { Timestamp } from "../../components/Timestamp.tsx";
import { graphql } from "../../gql/index.ts";

const Keys = graphql(`
  query AdminApiKeys($userId: Int, $page: Int!, $size: Int!) {
    adminApiKeyPage(userId: $userId, page: $page, size: $size) {
      total
      page
      pages
      items {
        id
        userId
        name
        scopes
        disabled
        adminDisabled
        expiresAt
        lastUsedAt
        createdAt
      }
    }
  }
`);

const SetLocked = graphql(`
  mutation AdminSetApiKeyLocked($id: Int!, $locked: Boolean!) {
    adminSetApiKeyLocked(id: $id, locked: $locked) {
      id
      adminDisabled
    }
  }
`);

const DeleteKey = graphql(`
  mutation AdminDeleteApiKey($id: Int!) {
    adminDeleteApiKey(id: $id)
  }
`);

/**
 * Every user's API keys (api_keys:admin): the administrator's lock, which the owner cannot clear,
 * and deletion; server-paged, one user's with the filter.
 */
export function ApiKeysAdminPanel() {
  const [draft, setDraft] = useState("");
  const [userId, setUserId] = useState<number | null>(null);
  const [page, setPage] = useState(1);
  const [{ data, fetching, error }, refetch] = useQuery({ query: Keys, variables: { userId, page, size: 20 } });
  const [lock, setLocked] = useMutation(SetLocked);
  const [removal, remove] = useMutation(DeleteKey);
  const [confirming, setConfirming] = useState<number | null>(null);
  const changed = () => refetch({ requestPolicy: "network-only" });

  function filter(e: FormEvent) {
    e.preventDefault();
    const n = Number(draft);
    setUserId(draft.trim() && Number.isInteger(n) ? n : null);
    setPage(1);
  }

  return (
    <Stack gap="md">
      <Title order={2} size="h3">
        API keys of every user
      </Title>
      <form onSubmit={filter} aria-label="API key filter">
        <Group align="end" gap="sm">
          <TextInput label="Owner's user id" inputMode="numeric" value={draft} onChange={(e) => setDraft(e.currentTarget.value)} w={200} />
          <Button type="submit" variant="default">
            Show keys
          </Button>
        </Group>
      </form>
      {error && <ErrorAlert error={error} title="The API keys could not be loaded" />}
      {(lock.error ?? removal.error) && <ErrorAlert error={(lock.error ?? removal.error)!} title="The key was not changed" />}
      {!data && fetching && <Busy label="Loading the API keys" />}
      {data && data.adminApiKeyPage.total === 0 && <Text c="dimmed">No API keys.</Text>}
      {data && data.adminApiKeyPage.items.length > 0 && (
        <TableScroll minWidth={820} label="API keys of every user table">
          <Table striped aria-busy={fetching}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Owner</Table.Th>
                <Table.Th>Scopes</Table.Th>
                <Table.Th>Last used</Table.Th>
                <Table.Th>Owner's switch</Table.Th>
                <Table.Th>Locked</Table.Th>
                <Table.Th>Delete</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.adminApiKeyPage.items.map((k) => (
                <Table.Tr key={k.id}>
                  <Table.Td>{k.name}</Table.Td>
                  <Table.Td>user {k.userId}</Table.Td>
                  <Table.Td>
                    <Text size="sm" style={{ wordBreak: "break-word" }}>
                      {k.scopes.join(", ")}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Timestamp value={k.lastUsedAt} empty="Never" />
                  </Table.Td>
                  <Table.Td>{k.disabled ? <StateBadge tone="neutral">disabled</StateBadge> : <StateBadge tone="good">enabled</StateBadge>}</Table.Td>
                  <Table.Td>
                    <Switch aria-label={`Lock key ${k.name} of user ${k.userId}`} checked={k.adminDisabled} onChange={(e) => void setLocked({ id: k.id, locked: e.currentTarget.checked }).then(changed)} />
                  </Table.Td>
                  <Table.Td>
                    {confirming === k.id ? (
                      <Button size="xs" color="red.9" aria-label={`Delete for good: key ${k.name} of user ${k.userId}`} onClick={() => void remove({ id: k.id }).then(() => (setConfirming(null), changed()))}>
                        Delete for good
                      </Button>
                    ) : (
                      <Button size="xs" variant="default" aria-label={`Delete key ${k.name} of user ${k.userId}`} onClick={() => setConfirming(k.id)}>
                        Delete
                      </Button>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
      {data && data.adminApiKeyPage.total > 0 && <Pager page={page} pages={data.adminApiKeyPage.pages} total={data.adminApiKeyPage.total} onChange={setPage} noun="API keys" nameButtons />}
    </Stack>
  );
}
