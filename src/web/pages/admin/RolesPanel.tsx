import { Alert, Button, Card, Group, MultiSelect, Stack, Switch, Table, Text, TextInput, Title } from "@mantine/core";
import { useState, type FormEvent } from "react";
import { useMutation, useQuery } from "urql";
import { Busy } from "../../components/Busy.tsx";
import { EditDeleteActions } from "../../components/EditDeleteActions.tsx";
import { ErrorAlert, apiMessage } from "../../components/ErrorAlert.tsx";
import { Pager } from "../../components/Pager.tsx";
import { StateBadge } from "../../components/StateBadge.tsx";
import { TableScroll } from "../../components/TableScroll.tsx";
import { graphql } from "../../gql/index.ts";
import type { AdminRolesQuery } from "../../gql/graphql.ts";

const PAGE_SIZE = 20;

const Roles = graphql(`
  query AdminRoles($page: Int!, $size: Int!) {
    roles(page: $page, size: $size) {
      total
      page
      pages
      items {
        id
        name
        scopes
        defaultRole
        userCount
      }
    }
    scopes {
      name
      description
    }
  }
`);

const CreateRole = graphql(`
  mutation AdminCreateRole($input: RoleInput!) {
    createRole(input: $input) {
      id
    }
  }
`);

const UpdateRole = graphql(`
  mutation AdminUpdateRole($id: Int!, $input: RolePatch!) {
    updateRole(id: $id, input: $input) {
      id
      name
      scopes
      defaultRole
    }
  }
`);

const DeleteRole = graphql(`
  mutation AdminDeleteRole($id: Int!) {
    deleteRole(id: $id)
  }
`);

type Role = AdminRolesQuery["roles"]["items"][number];

/** Roles and the scopes they grant: list, create, edit, delete (the API refuses a role in use or a built-in one). */
export function RolesPanel() {
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<Role | "new" | null>(null);
  const [{ data, fetching, error }, refetch] = useQuery({ query: Roles, variables: { page, size: PAGE_SIZE } });
  const [removal, remove] = useMutation(DeleteRole);
  const [confirming, setConfirming] = useState<number | null>(null);
  const changed = () => refetch({ requestPolicy: "network-only" });

  if (error && !data) return <ErrorAlert error={error} title="The roles could not be loaded" />;
  if (!data) return <Busy label="Loading the roles" />;
  const roles = data.roles;
  const scopeOptions = data.scopes.map((s) => ({ value: s.name, label: `${s.name} — ${s.description}` }));

  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={2} size="h3">
          Roles
        </Title>
        <Button onClick={() => setEditing("new")}>New role</Button>
      </Group>
      {editing && <RoleForm key={editing === "new" ? "new" : editing.id} role={editing === "new" ? null : editing} scopeOptions={scopeOptions} onDone={(saved) => (setEditing(null), saved && changed())} />}
      {removal.error && <ErrorAlert error={removal.error} title="The role was not deleted" />}
      {roles.total === 0 ? (
        <Text c="dimmed">No roles.</Text>
      ) : (
        <TableScroll minWidth={760} label="Roles table">
          <Table striped aria-busy={fetching}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Scopes</Table.Th>
                <Table.Th>Users</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {roles.items.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td>
                    {r.name}{" "}
                    {r.defaultRole && (
                      <StateBadge tone="info">default</StateBadge>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" style={{ wordBreak: "break-word" }}>
                      {r.scopes.join(", ")}
                    </Text>
                  </Table.Td>
                  <Table.Td>{r.userCount}</Table.Td>
                  <Table.Td>
                    <EditDeleteActions
                      what="role"
                      name={r.name}
                      confirming={confirming === r.id}
                      onEdit={() => setEditing(r)}
                      onConfirm={() => setConfirming(r.id)}
                      onDelete={() => void remove({ id: r.id }).then(() => (setConfirming(null), changed()))}
                    />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
      {roles.total > 0 && <Pager page={page} pages={roles.pages} total={roles.total} onChange={setPage} noun="roles" nameButtons />}
    </Stack>
  );
}

function RoleForm({ role, scopeOptions, onDone }: { role: Role | null; scopeOptions: { value: string; label: string }[]; onDone(saved: boolean): void }) {
  const [name, setName] = useState(role?.name ?? "");
  const [scopes, setScopes] = useState<string[]>(role?.scopes ?? []);
  const [defaultRole, setDefaultRole] = useState(role?.defaultRole ?? false);
  const [problem, setProblem] = useState<string | null>(null);
  const [created, create] = useMutation(CreateRole);
  const [updated, update] = useMutation(UpdateRole);
  // A role may hold wildcards (events:*) the catalogue does not list: keep them choosable.
  const options = [...scopeOptions, ...scopes.filter((s) => !scopeOptions.some((o) => o.value === s)).map((s) => ({ value: s, label: s }))];

  async function submit(e: FormEvent) {
    e.preventDefault();
    setProblem(null);
    const input = { name, scopes, defaultRole };
    const res = role ? await update({ id: role.id, input }) : await create({ input });
    if (res.error) setProblem(apiMessage(res.error));
    else onDone(true);
  }

  const title = role ? `Edit role ${role.name}` : "New role";
  return (
    <Card withBorder component="section" aria-label={title}>
      <form onSubmit={(e) => void submit(e)}>
        <Stack gap="sm">
          <Title order={3} size="h4">
            {title}
          </Title>
          <TextInput label="Role name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <MultiSelect label="Scopes the role grants" data={options} value={scopes} onChange={setScopes} searchable />
          <Switch label="Default role for new users" checked={defaultRole} onChange={(e) => setDefaultRole(e.currentTarget.checked)} />
          {problem && (
            <Alert role="alert" color="red" title="Not saved">
              {problem}
            </Alert>
          )}
          <Group>
            <Button type="submit" loading={created.fetching || updated.fetching}>
              {role ? "Save role" : "Create role"}
            </Button>
            <Button variant="default" onClick={() => onDone(false)}>
              Cancel
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}
