import { Button, Checkbox, Group, Modal, Select, Stack, TextInput, Textarea } from "@mantine/core";
import { useState } from "react";
import { useMutation } from "urql";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { graphql } from "../../gql/index.ts";
import { fieldErrors } from "../../lib/field-errors.ts";
import { typesFor, useCatalogue } from "./catalogue.ts";
import { DISTRIBUTIONS, options } from "./event-labels.ts";

const CreateAttribute = graphql(`
  mutation CreateAttribute($eventUuid: String!, $input: AttributeInput!) {
    createAttribute(eventUuid: $eventUuid, input: $input) {
      uuid
    }
  }
`);
const UpdateAttribute = graphql(`
  mutation UpdateAttribute($uuid: String!, $input: AttributeInput!) {
    updateAttribute(uuid: $uuid, input: $input) {
      uuid
      type
      category
      value
      toIds
      comment
      distribution
    }
  }
`);

export interface EditableAttribute {
  uuid: string;
  type: string;
  category: string;
  value: string;
  toIds: boolean;
  comment: string;
  distribution: number;
}

interface Props {
  eventUuid: string;
  /** Absent: a new attribute. */
  attribute?: EditableAttribute;
  onClose(): void;
  onSaved(): void;
}

/** Create or change an attribute: categories and their types from the catalogue, the API's messages at the fields. */
export function AttributeFormModal({ eventUuid, attribute, onClose, onSaved }: Props) {
  const { catalogue, error: catalogueError } = useCatalogue();
  const [category, setCategory] = useState<string | null>(attribute?.category ?? null);
  const [type, setType] = useState<string | null>(attribute?.type ?? null);
  const [value, setValue] = useState(attribute?.value ?? "");
  const [comment, setComment] = useState(attribute?.comment ?? "");
  const [toIds, setToIds] = useState(attribute?.toIds ?? false);
  const [distribution, setDistribution] = useState<string | null>(String(attribute?.distribution ?? 5));
  const [created, create] = useMutation(CreateAttribute);
  const [updated, update] = useMutation(UpdateAttribute);
  const state = attribute ? updated : created;
  const errors = fieldErrors(state.error);
  const shownElsewhere = Object.keys(errors).some((f) => ["type", "category", "value", "comment", "distribution", "toIds"].includes(f));

  function chooseType(t: string | null) {
    setType(t);
    const info = catalogue?.types.find((x) => x.name === t);
    // The type's defaults, as the API would apply them, until the user changes them.
    if (info && !attribute) {
      if (!category) setCategory(info.defaultCategory);
      setToIds(info.toIds);
    }
  }

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    const input = { type: type ?? undefined, category: category ?? undefined, value, comment, toIds, distribution: distribution ? Number(distribution) : undefined };
    const res = attribute ? await update({ uuid: attribute.uuid, input }) : await create({ eventUuid, input });
    if (!res.error) onSaved();
  }

  return (
    <Modal closeButtonProps={{ "aria-label": "Close the attribute form" }} opened onClose={onClose} title={attribute ? "Edit attribute" : "Add attribute"} size="lg">
      {catalogueError && <ErrorAlert error={catalogueError} title="The type catalogue could not be loaded" />}
      {!catalogue && !catalogueError && <Busy label="Loading the type catalogue" minHeight={120} />}
      {catalogue && (
        <Stack component="form" onSubmit={submit} gap="sm" aria-label={attribute ? "Edit attribute" : "Add attribute"}>
          <Select
            label="Category"
            placeholder="Any category"
            data={catalogue.categories.map((c) => c.name)}
            value={category}
            onChange={(c) => {
              setCategory(c);
              if (type && c && !typesFor(catalogue, c).includes(type)) setType(null);
            }}
            searchable
            clearable
            error={errors.category}
          />
          <Select label="Type" placeholder="Choose a type" data={typesFor(catalogue, category)} value={type} onChange={chooseType} searchable required error={errors.type} />
          <Textarea label="Value" value={value} onChange={(e) => setValue(e.currentTarget.value)} required autosize minRows={1} maxRows={6} error={errors.value} />
          <TextInput label="Comment" value={comment} onChange={(e) => setComment(e.currentTarget.value)} error={errors.comment} />
          <Select label="Distribution" data={options(DISTRIBUTIONS)} value={distribution} onChange={setDistribution} allowDeselect={false} error={errors.distribution} />
          <Checkbox label="IDS signature (to_ids)" checked={toIds} onChange={(e) => setToIds(e.currentTarget.checked)} error={errors.toIds} />
          {state.error && !shownElsewhere && <ErrorAlert error={state.error} title="The attribute was not saved" />}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={state.fetching}>
              {attribute ? "Save attribute" : "Add attribute"}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
