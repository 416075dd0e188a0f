import { Alert, Button, Card, Code, CopyButton, Group, MultiSelect, Stack, Switch, Table, Text, TextInput, Textarea, Title } from "@mantine/core";
import { useMemo, useState, type FormEvent } from "react";
import { useMutation, useQuery } from "urql";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert, apiMessage } from "../../components/ErrorAlert.tsx";
import { Pager } from "../../components/Pager.tsx";
import { Timestamp } from "../../components/Timestamp.tsx";
import { StateBadge } from "../../components/StateBadge.tsx";
import { TableScroll } from "../../components/TableScroll.tsx";
import { graphql } from "../../gql/index.ts";
import type { ApiKeysQuery } from "../../gql/graphql.ts";
import { grants, useIdentity } from "../../lib/identity.ts";

const ApiKeys = graphql(`
  query ApiKeys($page: Int!, $size: Int!) {
    apiKeyPage(page: $page, size: $size) {
      total
      page
      pages
      items {
        id
        name
        comment
        scopes
        disabled
        adminDisabled
        expiresAt
        lastUsedAt
        createdAt
      }
    }
    scopes {
      name
      description
    }
  }
`);

const CreateApiKey = graphql(`
  mutation CreateApiKey($input: CreateApiKeyInput!) {
    createApiKey(input: $input) {
      token
      apiKey {
        id
        name
      }
    }
  }
`);

const SetDisabled = graphql(`
  mutation SetApiKeyDisabled($id: Int!, $disabled: Boolean!) {
    setApiKeyDisabled(id: $id, disabled: $disabled) {
      id
      disabled
    }
  }
`);

const DeleteApiKey = graphql(`
  mutation DeleteApiKey($id: Int!) {
    deleteApiKey(id: $id)
  }
`);

type Key = ApiKeysQuery["apiKeyPage"]["items"][number];

const PAGE_SIZE = 20;

/** The caller's API keys: a new key's token is shown once, here, and kept nowhere else. */
export function ApiKeysPanel() {
  const [page, setPage] = useState(1);
  const [{ data, fetching, error }, refetch] = useQuery({ query: ApiKeys, variables: { page, size: PAGE_SIZE } });
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const identity = useIdentity();
  const may = (s: string) => (identity ? grants(identity.scopes, s) : false);

  // The role's scopes: catalogue entries it grants, and its own wildcards (events:* and the like).
  const scopeOptions = useMemo(() => {
    if (!data || !identity) return [];
    const names = new Set(data.scopes.map((s) => s.name).filter((n) => grants(identity.scopes, n)));
    for (const s of identity.scopes) names.add(s);
    const described = new Map(data.scopes.map((s) => [s.name, s.description]));
    return [...names].sort().map((n) => ({ value: n, label: described.has(n) ? `${n} — ${described.get(n)}` : n }));
  }, [data, identity]);

  return (
    <Stack gap="lg">
      {created && <NewToken {...created} onDone={() => setCreated(null)} />}
      <Stack gap="sm" component="section" aria-labelledby="keys-heading">
        <Title order={2} size="h3" id="keys-heading">
          Your API keys
        </Title>
        {error && <ErrorAlert error={error} title="Your API keys could not be loaded" />}
        {!data && fetching && <Busy label="Loading your API keys" />}
        {data && data.apiKeyPage.total === 0 && <Text c="dimmed">You have no API keys.</Text>}
        {data && data.apiKeyPage.items.length > 0 && <KeyTable keys={data.apiKeyPage.items} mayUpdate={may("api_keys:update")} mayDelete={may("api_keys:delete")} onChange={() => refetch({ requestPolicy: "network-only" })} />}
        {data && data.apiKeyPage.total > 0 && <Pager page={page} pages={data.apiKeyPage.pages} total={data.apiKeyPage.total} onChange={setPage} noun="API keys" nameButtons />}
      </Stack>
      {may("api_keys:create") && (
        <NewKeyForm
          options={scopeOptions}
          onCreated={(name, token) => {
            setCreated({ name, token });
            refetch({ requestPolicy: "network-only" });
          }}
        />
      )}
    </Stack>
  );
}

function NewToken({ name, token, onDone }: { name: string; token: string; onDone(): void }) {
  return (
    <Alert color="green" title={`Key "${name}" created`} role="status">
      <Stack gap="xs">
        <Text size="sm">This is the only time the token is shown. Store it now: it cannot be shown again (a lost key is deleted and created anew).</Text>
        <Group gap="xs" wrap="nowrap">
          <Code aria-label="New API key token" style={{ wordBreak: "break-all" }}>
            {token}
          </Code>
          <CopyButton value={token}>
            {({ copied, copy }) => (
              <Button size="xs" variant={copied ? "light" : "filled"} onClick={copy} aria-label={copied ? "Copied the token" : "Copy the token"}>
                {copied ? "Copied" : "Copy"}
              </Button>
            )}
          </CopyButton>
        </Group>
        <Group>
          <Button size="xs" variant="default" onClick={onDone}>
            I have stored it
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}

function KeyTable({ keys, mayUpdate, mayDelete, onChange }: { keys: Key[]; mayUpdate: boolean; mayDelete: boolean; onChange(): void }) {
  const [toggle, setDisabled] = useMutation(SetDisabled);
  const [removal, remove] = useMutation(DeleteApiKey);
  const [confirming, setConfirming] = useState<number | null>(null);
  const problem = toggle.error ?? removal.error;
  return (
    <Stack gap="xs">
      {problem && <ErrorAlert error={problem} title="The key was not changed" />}
      <TableScroll minWidth={760} label="API keys table">
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Scopes</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th>Expires</Table.Th>
              <Table.Th>Last used</Table.Th>
              <Table.Th>Enabled</Table.Th>
              <Table.Th>Delete</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {keys.map((k) => (
              <Table.Tr key={k.id}>
                <Table.Td>
                  <Text fw={600}>{k.name}</Text>
                  {k.comment && (
                    <Text size="sm" c="dimmed">
                      {k.comment}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  <Group gap={4}>
                    {k.scopes.map((s) => (
                      <StateBadge key={s} tone="neutral">
                        {s}
                      </StateBadge>
                    ))}
                  </Group>
                </Table.Td>
                <Table.Td>
                  <Timestamp value={k.createdAt} />
                </Table.Td>
                <Table.Td>
                  <Timestamp value={k.expiresAt} empty="Never" />
                </Table.Td>
                <Table.Td>
                  <Timestamp value={k.lastUsedAt} empty="Never" />
                </Table.Td>
                <Table.Td>
                  {k.adminDisabled ? (
                    <StateBadge tone="bad">Locked by an administrator</StateBadge>
                  ) : (
                    <Switch
                      aria-label={`Enable key ${k.name}`}
                      checked={!k.disabled}
                      disabled={!mayUpdate}
                      onChange={(e) => void setDisabled({ id: k.id, disabled: !e.currentTarget.checked }).then(onChange)}
                    />
                  )}
                </Table.Td>
                <Table.Td>
                  {confirming === k.id ? (
                    <Group gap={4} wrap="nowrap">
                      <Button size="xs" color="red.9" onClick={() => void remove({ id: k.id }).then(() => (setConfirming(null), onChange()))} aria-label={`Delete for good: key ${k.name}`}>
                        Delete for good
                      </Button>
                      <Button size="xs" variant="default" onClick={() => setConfirming(null)}>
                        Keep
                      </Button>
                    </Group>
                  ) : (
                    <Button size="xs" variant="default" color="red" disabled={!mayDelete || k.adminDisabled} onClick={() => setConfirming(k.id)} aria-label={`Delete key ${k.name}`}>
                      Delete
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </TableScroll>
    </Stack>
  );
}

function NewKeyForm({ options, onCreated }: { options: { value: string; label: string }[]; onCreated(name: string, token: string): void }) {
  const [name, setName] = useState("");
  const [comment, setComment] = useState("");
  const [scopes, setScopes] = useState<string[]>([]);
  const [expires, setExpires] = useState("");
  const [state, create] = useMutation(CreateApiKey);
  const [problem, setProblem] = useState<string | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setProblem(null);
    const res = await create({ input: { name, comment: comment || null, scopes, expiresAt: expires ? new Date(expires).toISOString() : null } });
    if (res.error || !res.data) {
      setProblem(apiMessage(res.error ?? "The key was not created"));
      return;
    }
    onCreated(res.data.createApiKey.apiKey.name, res.data.createApiKey.token);
    setName("");
    setComment("");
    setScopes([]);
    setExpires("");
  }

  return (
    <Card withBorder component="section" aria-labelledby="new-key-heading">
      <form onSubmit={(e) => void submit(e)}>
        <Stack gap="sm">
          <Title order={2} size="h3" id="new-key-heading">
            Create an API key
          </Title>
          <TextInput label="Key name" required maxLength={255} value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <Textarea label="Comment" maxLength={2000} autosize minRows={1} value={comment} onChange={(e) => setComment(e.currentTarget.value)} />
          <MultiSelect
            label="Scopes"
            description="Only scopes your role grants; the key never does more than your role allows at the time"
            data={options}
            value={scopes}
            onChange={setScopes}
            searchable
            required
            nothingFoundMessage="No such scope in your role"
            comboboxProps={{ withinPortal: true }}
          />
          <TextInput label="Expires at (optional)" type="datetime-local" value={expires} onChange={(e) => setExpires(e.currentTarget.value)} />
          {problem && (
            <Alert role="alert" color="red" title="The key was not created">
              {problem}
            </Alert>
          )}
          <Group>
            <Button type="submit" loading={state.fetching} disabled={scopes.length === 0}>
              Create key
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
