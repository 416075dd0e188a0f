import { Alert, Button, Card, Group, SimpleGrid, Stack, Switch, Table, TagsInput, Text, TextInput, Textarea, Title } from "@mantine/core";
import { useState, type FormEvent } from "react";
import { useMutation, useQuery } from "urql";
import { Busy } from "../../components/Busy.tsx";
import { EditDeleteActions } from "../../components/EditDeleteActions.tsx";
import { ErrorAlert, apiMessage } from "../../components/ErrorAlert.tsx";
import { Pager } from "../../components/Pager.tsx";
import { StateBadge } from "../../components/StateBadge.tsx";
import { TableScroll } from "../../components/TableScroll.tsx";
import { graphql } from "../../gql/index.ts";
import type { AdminOrganisationsQuery } from "../../gql/graphql.ts";

const PAGE_SIZE = 20;

const Organisations = graphql(`
  query AdminOrganisations($page: Int!, $size: Int!) {
    organisations(page: $page, size: $size) {
      total
      page
      pages
      items {
        id
        uuid
        name
        description
        type
        nationality
        sector
        contacts
        landingPage
        local
        restrictedToDomain
        userCount
      }
    }
  }
`);

const CreateOrganisation = graphql(`
  mutation AdminCreateOrganisation($input: OrganisationInput!) {
    createOrganisation(input: $input) {
      id
    }
  }
`);

const UpdateOrganisation = graphql(`
  mutation AdminUpdateOrganisation($id: Int!, $input: OrganisationPatch!) {
    updateOrganisation(id: $id, input: $input) {
      id
    }
  }
`);

const DeleteOrganisation = graphql(`
  mutation AdminDeleteOrganisation($id: Int!) {
    deleteOrganisation(id: $id)
  }
`);

type Org = AdminOrganisationsQuery["organisations"]["items"][number];

/** Organisations: list, create, edit, delete (the API refuses one that still has users or data). */
export function OrganisationsPanel() {
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<Org | "new" | null>(null);
  const [{ data, fetching, error }, refetch] = useQuery({ query: Organisations, variables: { page, size: PAGE_SIZE } });
  const [removal, remove] = useMutation(DeleteOrganisation);
  const [confirming, setConfirming] = useState<number | null>(null);
  const changed = () => refetch({ requestPolicy: "network-only" });

  if (error && !data) return <ErrorAlert error={error} title="The organisations could not be loaded" />;
  if (!data) return <Busy label="Loading the organisations" />;
  const orgs = data.organisations;

  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={2} size="h3">
          Organisations
        </Title>
        <Button onClick={() => setEditing("new")}>New organisation</Button>
      </Group>
      {editing && <OrganisationForm key={editing === "new" ? "new" : editing.id} org={editing === "new" ? null : editing} onDone={(saved) => (setEditing(null), saved && changed())} />}
      {removal.error && <ErrorAlert error={removal.error} title="The organisation was not deleted" />}
      {orgs.total === 0 ? (
        <Text c="dimmed">No organisations.</Text>
      ) : (
        <TableScroll minWidth={760} label="Organisations table">
          <Table striped aria-busy={fetching}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Type</Table.Th>
                <Table.Th>Sector</Table.Th>
                <Table.Th>Users</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {orgs.items.map((o) => (
                <Table.Tr key={o.id}>
                  <Table.Td>
                    {o.name}{" "}
                    {!o.local && (
                      <StateBadge tone="neutral">known through shared data</StateBadge>
                    )}
                  </Table.Td>
                  <Table.Td>{o.type ?? "—"}</Table.Td>
                  <Table.Td>{o.sector ?? "—"}</Table.Td>
                  <Table.Td>{o.userCount}</Table.Td>
                  <Table.Td>
                    <EditDeleteActions
                      what="organisation"
                      name={o.name}
                      confirming={confirming === o.id}
                      onEdit={() => setEditing(o)}
                      onConfirm={() => setConfirming(o.id)}
                      onDelete={() => void remove({ id: o.id }).then(() => (setConfirming(null), changed()))}
                    />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
      {orgs.total > 0 && <Pager page={page} pages={orgs.pages} total={orgs.total} onChange={setPage} noun="organisations" nameButtons />}
    </Stack>
  );
}

function OrganisationForm({ org, onDone }: { org: Org | null; onDone(saved: boolean): void }) {
  const [name, setName] = useState(org?.name ?? "");
  const [description, setDescription] = useState(org?.description ?? "");
  const [type, setType] = useState(org?.type ?? "");
  const [nationality, setNationality] = useState(org?.nationality ?? "");
  const [sector, setSector] = useState(org?.sector ?? "");
  const [contacts, setContacts] = useState(org?.contacts ?? "");
  const [landingPage, setLandingPage] = useState(org?.landingPage ?? "");
  const [domains, setDomains] = useState<string[]>(org?.restrictedToDomain ?? []);
  const [local, setLocal] = useState(org?.local ?? true);
  const [problem, setProblem] = useState<string | null>(null);
  const [created, create] = useMutation(CreateOrganisation);
  const [updated, update] = useMutation(UpdateOrganisation);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setProblem(null);
    const orNull = (s: string) => (s.trim() ? s : null);
    const input = { name, description: orNull(description), type: orNull(type), nationality: orNull(nationality), sector: orNull(sector), contacts: orNull(contacts), landingPage: orNull(landingPage), restrictedToDomain: domains, local };
    const res = org ? await update({ id: org.id, input }) : await create({ input });
    if (res.error) setProblem(apiMessage(res.error));
    else onDone(true);
  }

  const title = org ? `Edit organisation ${org.name}` : "New organisation";
  return (
    <Card withBorder component="section" aria-label={title}>
      <form onSubmit={(e) => void submit(e)}>
        <Stack gap="sm">
          <Title order={3} size="h4">
            {title}
          </Title>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput label="Organisation name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
            <TextInput label="Type (for example CERT, vendor)" value={type} onChange={(e) => setType(e.currentTarget.value)} />
            <TextInput label="Nationality" value={nationality} onChange={(e) => setNationality(e.currentTarget.value)} />
            <TextInput label="Sector" value={sector} onChange={(e) => setSector(e.currentTarget.value)} />
            <TextInput label="Landing page URL" type="url" value={landingPage} onChange={(e) => setLandingPage(e.currentTarget.value)} />
            <TagsInput label="Users' e-mail domains (empty: any)" value={domains} onChange={setDomains} />
          </SimpleGrid>
          <Textarea label="Description" autosize minRows={2} value={description} onChange={(e) => setDescription(e.currentTarget.value)} />
          <Textarea label="Contacts" autosize minRows={1} value={contacts} onChange={(e) => setContacts(e.currentTarget.value)} />
          <Switch label="Local: has users on this instance" checked={local} onChange={(e) => setLocal(e.currentTarget.checked)} />
          {problem && (
            <Alert role="alert" color="red" title="Not saved">
              {problem}
            </Alert>
          )}
          <Group>
            <Button type="submit" loading={created.fetching || updated.fetching}>
              {org ? "Save organisation" : "Create organisation"}
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
