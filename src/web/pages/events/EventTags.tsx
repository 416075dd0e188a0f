import { Autocomplete, Button, CloseButton, Group, Stack, Text } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useState } from "react";
import { useMutation, useQuery } from "urql";
import { apiMessage } from "../../components/ErrorAlert.tsx";
import { graphql } from "../../gql/index.ts";
import { TagBadge } from "./TagBadge.tsx";

const SuggestionsQuery = graphql(`
  query EventTagSuggestions($text: String!) {
    tagSuggestions(text: $text, limit: 15) {
      name
    }
  }
`);
const TagMutation = graphql(`
  mutation TagEvent($uuid: String!, $tag: String!) {
    tagEvent(uuid: $uuid, tag: $tag)
  }
`);
const UntagMutation = graphql(`
  mutation UntagEvent($uuid: String!, $tag: String!) {
    untagEvent(uuid: $uuid, tag: $tag)
  }
`);

interface EventTagsProps {
  uuid: string;
  tags: readonly { id: number; name: string; colour: string }[];
  /** May attach and detach tags (events:tag); otherwise the tags are shown only. */
  canTag: boolean;
  onChanged(): void;
}

/**
 * An event's plain tags, and for a user who may tag: a field that suggests tags as one types (the
 * names in use and the enabled taxonomies' tags, from `tagSuggestions`), any other name creating a
 * new tag, and a remove button per tag. A refusal (an exclusive taxonomy predicate, a bad name)
 * shows the API's message at the field.
 */
export function EventTags({ uuid, tags, canTag, onChanged }: EventTagsProps) {
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [typed] = useDebouncedValue(text.trim(), 200);
  const [{ data }] = useQuery({ query: SuggestionsQuery, variables: { text: typed }, pause: !canTag || typed.length === 0 || typed.length > 255 });
  const [tagState, tagEvent] = useMutation(TagMutation);
  const [untagState, untagEvent] = useMutation(UntagMutation);
  const attached = new Set(tags.map((t) => t.name));
  const suggestions = (data?.tagSuggestions ?? []).map((s) => s.name).filter((name) => !attached.has(name));

  const add = async (name: string) => {
    const tag = name.trim();
    if (!tag) return;
    const res = await tagEvent({ uuid, tag });
    if (res.error) {
      setProblem(apiMessage(res.error));
      return;
    }
    setText("");
    setProblem(null);
    onChanged();
  };
  const remove = async (tag: string) => {
    const res = await untagEvent({ uuid, tag });
    setProblem(res.error ? apiMessage(res.error) : null);
    if (!res.error) onChanged();
  };

  return (
    <Stack gap="xs">
      {tags.length ? (
        <Group gap={6}>
          {tags.map((t) => (
            <Group key={t.id} gap={0} wrap="nowrap">
              <TagBadge name={t.name} colour={t.colour} />
              {canTag && (
                <CloseButton size="sm" aria-label={`Remove the tag ${t.name}`} disabled={untagState.fetching} onClick={() => void remove(t.name)} />
              )}
            </Group>
          ))}
        </Group>
      ) : (
        <Text c="dimmed" size="sm">
          No tags.
        </Text>
      )}
      {canTag && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void add(text);
          }}
        >
          <Group gap="xs" align="flex-start" wrap="nowrap" maw={480}>
            <Autocomplete
              label="Add a tag"
              placeholder="tlp:amber"
              value={text}
              onChange={(v) => {
                setText(v);
                setProblem(null);
              }}
              onOptionSubmit={(v) => void add(v)}
              data={suggestions}
              maxLength={255}
              error={problem}
              style={{ flex: 1 }}
            />
            <Button type="submit" variant="light" mt={25} loading={tagState.fetching} disabled={!text.trim()}>
              Add
            </Button>
          </Group>
        </form>
      )}
    </Stack>
  );
}
