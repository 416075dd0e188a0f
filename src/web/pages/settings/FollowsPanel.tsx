import { Anchor, Button, Group, Stack, Table, Text, Title } from "@mantine/core";
import { useState } from "react";
import { useMutation, useQuery } from "urql";
import { Link } from "wouter";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { Pager } from "../../components/Pager.tsx";
import { TableScroll } from "../../components/TableScroll.tsx";
import { graphql } from "../../gql/index.ts";
import type { FollowList } from "../../gql/graphql.ts";

const Follows = graphql(`
  query Follows {
    userSetting(namespace: "notifications")
  }
`);

const Unfollow = graphql(`
  mutation Unfollow($list: FollowList!, $uuid: String!) {
    unfollow(list: $list, uuid: $uuid)
  }
`);

const LISTS: { list: FollowList; key: string; label: string; href?: (uuid: string) => string }[] = [
  { list: "EVENTS", key: "events", label: "Events", href: (u) => `/events/${u}` },
  { list: "ATTRIBUTES", key: "attributes", label: "Attributes" },
  { list: "OBJECTS", key: "objects", label: "Objects" },
  { list: "ORGANISATIONS", key: "organisations", label: "Organisations" },
];

const PAGE_SIZE = 20;

/**
 * What the user follows (the notifications user setting's follow lists, spec 2.5). The lists are one
 * settings document the API answers whole, so they page here.
 */
export function FollowsPanel() {
  const [{ data, error, fetching }, refetch] = useQuery({ query: Follows, requestPolicy: "network-only" });
  if (error) return <ErrorAlert error={error} title="What you follow could not be loaded" />;
  if (!data) return <Busy label="Loading what you follow" />;
  const follow = ((data.userSetting as { follow?: Record<string, string[]> } | null)?.follow ?? {}) as Record<string, string[] | undefined>;
  return (
    <Stack gap="lg" aria-busy={fetching}>
      {LISTS.map((l) => (
        <FollowList key={l.key} title={l.label} list={l.list} uuids={follow[l.key] ?? []} href={l.href} onChange={() => refetch({ requestPolicy: "network-only" })} />
      ))}
    </Stack>
  );
}

function FollowList({ title, list, uuids, href, onChange }: { title: string; list: FollowList; uuids: string[]; href?: (uuid: string) => string; onChange(): void }) {
  const [page, setPage] = useState(1);
  const [state, unfollow] = useMutation(Unfollow);
  const pages = Math.ceil(uuids.length / PAGE_SIZE);
  const shown = uuids.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  const noun = `followed ${title.toLowerCase()}`;
  return (
    <Stack gap="xs" component="section" aria-label={`Followed ${title.toLowerCase()}`}>
      <Title order={2} size="h4">
        {title}
      </Title>
      {state.error && <ErrorAlert error={state.error} title="Not unfollowed" />}
      {uuids.length === 0 ? (
        <Text c="dimmed">You follow no {title.toLowerCase()}.</Text>
      ) : (
        <TableScroll minWidth={420} label={`Followed ${title.toLowerCase()} table`}>
          <Table>
            <Table.Tbody>
              {shown.map((u) => (
                <Table.Tr key={u}>
                  <Table.Td style={{ wordBreak: "break-all" }}>
                    {href ? (
                      <Anchor component={Link} href={href(u)}>
                        {u}
                      </Anchor>
                    ) : (
                      u
                    )}
                  </Table.Td>
                  <Table.Td w={120}>
                    <Group justify="flex-end">
                      <Button size="xs" variant="default" aria-label={`Unfollow ${u}`} onClick={() => void unfollow({ list, uuid: u }).then(onChange)}>
                        Unfollow
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
      {uuids.length > PAGE_SIZE && <Pager page={page} pages={pages} total={uuids.length} onChange={setPage} noun={noun} nameButtons />}
    </Stack>
  );
}
