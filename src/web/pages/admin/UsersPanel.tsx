import { Alert, Button, Card, Group, NativeSelect, PasswordInput, Stack, Switch, Table, Text, TextInput, Title } from "@mantine/core";
import { useState, type FormEvent } from "react";
import { useMutation, useQuery } from "urql";
import { Busy } from "../../components/Busy.tsx";
import { EditDeleteActions } from "../../components/EditDeleteActions.tsx";
import { ErrorAlert, apiMessage } from "../../components/ErrorAlert.tsx";
import { Pager } from "../../components/Pager.tsx";
import { Timestamp } from "../../components/Timestamp.tsx";
import { StateBadge } from "../../components/StateBadge.tsx";
import { TableScroll } from "../../components/TableScroll.tsx";
import { graphql } from "../../gql/index.ts";
import type { AdminUsersQuery } from "../../gql/graphql.ts";

const PAGE_SIZE = 20;

const Users = graphql(`
  query AdminUsers($page: Int!, $size: Int!) {
    users(page: $page, size: $size) {
      total
      page
      pages
      items {
        id
        email
        disabled
        createdAt
        orgId
        roleId
        organisation {
          name
        }
        role {
          name
        }
      }
    }
    roles(page: 1, size: 100) {
      items {
        id
        name
      }
    }
    organisations(page: 1, size: 100) {
      items {
        id
        name
      }
    }
  }
`);

const CreateUser = graphql(`
  mutation AdminCreateUser($input: CreateUserInput!) {
    createUser(input: $input) {
      id
    }
  }
`);

const UpdateUser = graphql(`
  mutation AdminUpdateUser($id: Int!, $input: UpdateUserInput!) {
    updateUser(id: $id, input: $input) {
      id
      email
      disabled
      orgId
      roleId
    }
  }
`);

const DeleteUser = graphql(`
  mutation AdminDeleteUser($id: Int!) {
    deleteUser(id: $id)
  }
`);

type User = AdminUsersQuery["users"]["items"][number];
type Option = { value: string; label: string };

/** Accounts: list, create, edit (e-mail, role, organisation, password, disabled), delete. */
export function UsersPanel() {
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<User | "new" | null>(null);
  const [{ data, fetching, error }, refetch] = useQuery({ query: Users, variables: { page, size: PAGE_SIZE } });
  const [removal, remove] = useMutation(DeleteUser);
  const [confirming, setConfirming] = useState<number | null>(null);
  const changed = () => refetch({ requestPolicy: "network-only" });

  if (error && !data) return <ErrorAlert error={error} title="The users could not be loaded" />;
  if (!data) return <Busy label="Loading the users" />;
  const users = data.users;
  const roles = data.roles.items.map((r) => ({ value: String(r.id), label: r.name }));
  const orgs = data.organisations.items.map((o) => ({ value: String(o.id), label: o.name }));

  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={2} size="h3">
          Users
        </Title>
        <Button onClick={() => setEditing("new")}>New user</Button>
      </Group>
      {editing && <UserForm key={editing === "new" ? "new" : editing.id} user={editing === "new" ? null : editing} roles={roles} orgs={orgs} onDone={(saved) => (setEditing(null), saved && changed())} />}
      {removal.error && <ErrorAlert error={removal.error} title="The user was not deleted" />}
      {users.total === 0 ? (
        <Text c="dimmed">No users.</Text>
      ) : (
        <TableScroll minWidth={760} label="Users table">
          <Table striped aria-busy={fetching}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>E-mail</Table.Th>
                <Table.Th>Organisation</Table.Th>
                <Table.Th>Role</Table.Th>
                <Table.Th>Created</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {users.items.map((u) => (
                <Table.Tr key={u.id}>
                  <Table.Td>{u.email}</Table.Td>
                  <Table.Td>{u.organisation.name}</Table.Td>
                  <Table.Td>{u.role.name}</Table.Td>
                  <Table.Td>
                    <Timestamp value={u.createdAt} />
                  </Table.Td>
                  <Table.Td>{u.disabled ? <StateBadge tone="bad">disabled</StateBadge> : <StateBadge tone="good">active</StateBadge>}</Table.Td>
                  <Table.Td>
                    <EditDeleteActions
                      what="user"
                      name={u.email}
                      confirming={confirming === u.id}
                      onEdit={() => setEditing(u)}
                      onConfirm={() => setConfirming(u.id)}
                      onDelete={() => void remove({ id: u.id }).then(() => (setConfirming(null), changed()))}
                    />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
      {users.total > 0 && <Pager page={page} pages={users.pages} total={users.total} onChange={setPage} noun="users" nameButtons />}
    </Stack>
  );
}

function UserForm({ user, roles, orgs, onDone }: { user: User | null; roles: Option[]; orgs: Option[]; onDone(saved: boolean): void }) {
  const [email, setEmail] = useState(user?.email ?? "");
  const [password, setPassword] = useState("");
  const [roleId, setRoleId] = useState(String(user?.roleId ?? roles[0]?.value ?? ""));
  const [orgId, setOrgId] = useState(String(user?.orgId ?? orgs[0]?.value ?? ""));
  const [disabled, setDisabled] = useState(user?.disabled ?? false);
  const [problem, setProblem] = useState<string | null>(null);
  const [created, create] = useMutation(CreateUser);
  const [updated, update] = useMutation(UpdateUser);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setProblem(null);
    const fields = { email, roleId: Number(roleId), orgId: Number(orgId), disabled, ...(password ? { password } : {}) };
    const res = user ? await update({ id: user.id, input: fields }) : await create({ input: fields });
    if (res.error) setProblem(apiMessage(res.error));
    else onDone(true);
  }

  const title = user ? `Edit ${user.email}` : "New user";
  return (
    <Card withBorder component="section" aria-label={title}>
      <form onSubmit={(e) => void submit(e)}>
        <Stack gap="sm">
          <Title order={3} size="h4">
            {title}
          </Title>
          <TextInput label="E-mail" type="email" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
          <PasswordInput label={user ? "New password (leave empty to keep)" : "Password"} required={!user} value={password} onChange={(e) => setPassword(e.currentTarget.value)} autoComplete="new-password" />
          <Group grow>
            <NativeSelect label="Role" data={roles} value={roleId} onChange={(e) => setRoleId(e.currentTarget.value)} />
            <NativeSelect label="Organisation" data={orgs} value={orgId} onChange={(e) => setOrgId(e.currentTarget.value)} />
          </Group>
          <Switch label="Disabled: cannot sign in, API keys refused" checked={disabled} onChange={(e) => setDisabled(e.currentTarget.checked)} />
          {problem && (
            <Alert role="alert" color="red" title="Not saved">
              {problem}
            </Alert>
          )}
          <Group>
            <Button type="submit" loading={created.fetching || updated.fetching}>
              {user ? "Save user" : "Create user"}
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
