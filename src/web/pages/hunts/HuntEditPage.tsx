import { Anchor, Button, Group, NativeSelect, Stack, Switch, TextInput, Textarea, Title } from "@mantine/core";
import { useMemo, useRef, useState, type FormEvent } from "react";
import { useMutation, useQuery } from "urql";
import { Link, useLocation, useParams, useSearch } from "wouter";
import { Busy } from "../../components/Busy.tsx";
import { ErrorAlert } from "../../components/ErrorAlert.tsx";
import { LuceneSyntaxHelp } from "../../components/LuceneSyntaxHelp.tsx";
import { graphql } from "../../gql/index.ts";
import type { HuntFrequency, HuntIndexTarget, HuntStatus, HuntType } from "../../gql/graphql.ts";
import { SearchFieldsQuery } from "../explore/documents.ts";
import { QueryBox, queryErrorOf, type QueryError } from "../explore/QueryBox.tsx";
import { AttackPatternPicker, techniquesOf } from "./AttackPatternPicker.tsx";
import { CpeBuilder } from "./CpeBuilder.tsx";
import { composeCpe, cpeProblem, EMPTY_CPE, parseCpe, type CpeFields } from "./cpe.ts";
import { HUNT_TYPE_LABELS, INDEX_LABELS, INDEX_TARGETS, prefillFrom, QUERY_LABELS, vulnerabilityIdProblem } from "./hunt-types.ts";

const HuntToEdit = graphql(`
  query HuntToEdit($id: Int!) {
    hunt(id: $id) {
      id
      name
      description
      huntType
      indexTarget
      query
      status
    }
  }
`);

const CreateHunt = graphql(`
  mutation CreateHunt($input: CreateHuntInput!) {
    createHunt(input: $input) {
      id
    }
  }
`);

const UpdateHunt = graphql(`
  mutation UpdateHuntFields($id: Int!, $input: UpdateHuntInput!) {
    updateHunt(id: $id, input: $input) {
      id
      name
      description
      huntType
      indexTarget
      query
      status
    }
  }
`);

interface FormState {
  name: string;
  description: string;
  huntType: HuntType;
  indexTarget: HuntIndexTarget | null;
  status: HuntStatus;
  schedule: HuntFrequency | "";
  lucene: string;
  cpe: CpeFields;
  vulnerabilityId: string;
  techniques: string[];
}

function queryOf(f: FormState): string {
  switch (f.huntType) {
    case "SEARCH":
      return f.lucene.trim();
    case "CPE":
      return composeCpe(f.cpe);
    case "RULES":
      return f.vulnerabilityId.trim();
    case "FW_ATTACK_PATTERN":
      return f.techniques.join(", ");
  }
}

function problemOf(f: FormState): string | null {
  switch (f.huntType) {
    case "SEARCH":
      return f.lucene.trim() ? null : "Give the Lucene query the hunt runs.";
    case "CPE":
      return cpeProblem(f.cpe);
    case "RULES":
      return vulnerabilityIdProblem(f.vulnerabilityId);
    case "FW_ATTACK_PATTERN":
      return f.techniques.length ? null : "Pick at least one technique.";
  }
}

/** Each type keeps what was typed for it, so switching types and back loses nothing. */
function withQuery(base: Omit<FormState, "lucene" | "cpe" | "vulnerabilityId" | "techniques">, query: string): FormState {
  return {
    ...base,
    lucene: base.huntType === "SEARCH" ? query : "",
    cpe: base.huntType === "CPE" ? (parseCpe(query) ?? EMPTY_CPE) : EMPTY_CPE,
    vulnerabilityId: base.huntType === "RULES" ? query : "",
    techniques: base.huntType === "FW_ATTACK_PATTERN" ? techniquesOf(query) : [],
  };
}

export default function HuntEditPage() {
  const params = useParams<{ id?: string }>();
  const id = params.id ? Number(params.id) : null;
  if (id !== null && !Number.isSafeInteger(id)) return <ErrorAlert error="There is no hunt with that id." title="Hunt not found" />;
  return id === null ? <NewHunt /> : <EditHunt id={id} />;
}

function NewHunt() {
  const search = useSearch();
  const prefill = prefillFrom(search);
  const initial = withQuery({ name: prefill.name, description: "", huntType: prefill.huntType, indexTarget: prefill.indexTarget, status: "ACTIVE", schedule: "" }, prefill.query);
  return <HuntForm initial={initial} />;
}

function EditHunt({ id }: { id: number }) {
  const [{ data, fetching, error }] = useQuery({ query: HuntToEdit, variables: { id }, requestPolicy: "network-only" });
  if (error) return <ErrorAlert error={error} title="The hunt could not be loaded" />;
  if (fetching || !data) return <Busy label="Loading the hunt" />;
  const h = data.hunt;
  const initial = withQuery({ name: h.name, description: h.description ?? "", huntType: h.huntType, indexTarget: h.indexTarget ?? null, status: h.status, schedule: "" }, h.query);
  return <HuntForm initial={initial} id={id} />;
}

function HuntForm({ initial, id }: { initial: FormState; id?: number }) {
  const [, navigate] = useLocation();
  const [form, setForm] = useState<FormState>(initial);
  const [tried, setTried] = useState(false);
  const [created, create] = useMutation(CreateHunt);
  const [updated, update] = useMutation(UpdateHunt);
  const set = (patch: Partial<FormState>) => setForm((f) => ({ ...f, ...patch }));
  const problem = problemOf(form);
  const nameProblem = form.name.trim() ? null : "Give the hunt a name.";
  const targets = INDEX_TARGETS[form.huntType];
  const error = created.error ?? updated.error;
  const formRef = useRef<HTMLFormElement>(null);
  // Explore's field list, for the Lucene box's completion.
  const [{ data: fieldData }] = useQuery({ query: SearchFieldsQuery, requestPolicy: "cache-first", pause: form.huntType !== "SEARCH" });
  const searchFields = fieldData?.searchFields ?? [];
  // The API parses a search hunt's query on save and refuses it as Explore's check does (400
  // `invalid_query` with the parser's position): shown at the box while the text is the one refused.
  const [sentLucene, setSentLucene] = useState<string | null>(null);
  const refused = useMemo(() => queryErrorOf(error), [error]);
  const emptyQuery = useMemo((): QueryError | null => (tried && problem ? { message: problem, offset: null } : null), [tried, problem]);
  const luceneError = refused && sentLucene === form.lucene ? refused : emptyQuery;

  async function submit(e: FormEvent) {
    e.preventDefault();
    setTried(true);
    if (problem || nameProblem) return;
    setSentLucene(form.lucene);
    const fields = {
      name: form.name.trim(),
      description: form.description.trim() || null,
      huntType: form.huntType,
      query: queryOf(form),
      status: form.status,
      ...(targets.length ? { indexTarget: form.indexTarget ?? targets[0] } : {}),
    };
    if (id === undefined) {
      const res = await create({ input: { ...fields, ...(form.schedule ? { schedule: form.schedule } : {}) } });
      if (res.data) navigate(`/hunts/${res.data.createHunt.id}`);
    } else {
      const res = await update({ id, input: fields });
      if (res.data) navigate(`/hunts/${id}`);
    }
  }

  return (
    <Stack gap="md" maw={820}>
      <Anchor component={Link} href={id === undefined ? "/hunts" : `/hunts/${id}`} size="sm">
        {id === undefined ? "Back to hunts" : "Back to the hunt"}
      </Anchor>
      <Title order={1}>{id === undefined ? "New hunt" : "Edit hunt"}</Title>
      <form ref={formRef} onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="md">
          <TextInput label="Name" required value={form.name} onChange={(e) => set({ name: e.currentTarget.value })} error={tried ? nameProblem : undefined} maxLength={255} />
          <Textarea label="Description" autosize minRows={2} value={form.description} onChange={(e) => set({ description: e.currentTarget.value })} />
          <NativeSelect
            label="Hunt type"
            value={form.huntType}
            onChange={(e) => {
              const huntType = e.currentTarget.value as HuntType;
              set({ huntType, indexTarget: INDEX_TARGETS[huntType][0] ?? null });
            }}
            data={(Object.keys(HUNT_TYPE_LABELS) as HuntType[]).map((t) => ({ value: t, label: HUNT_TYPE_LABELS[t] }))}
          />
          {form.huntType === "SEARCH" && (
            <Stack gap={4}>
              <QueryBox
                label={QUERY_LABELS.SEARCH}
                value={form.lucene}
                onChange={(lucene) => set({ lucene })}
                onSubmit={() => formRef.current?.requestSubmit()}
                fields={searchFields}
                error={luceneError}
              />
              <LuceneSyntaxHelp />
            </Stack>
          )}
          {form.huntType === "CPE" && <CpeBuilder value={form.cpe} onChange={(cpe) => set({ cpe })} showProblem={tried} />}
          {form.huntType === "RULES" && (
            <TextInput
              label={QUERY_LABELS.RULES}
              description="The detection rules the rules service lists for it"
              placeholder="CVE-2024-3400"
              value={form.vulnerabilityId}
              onChange={(e) => set({ vulnerabilityId: e.currentTarget.value })}
              error={tried ? problem : undefined}
            />
          )}
          {form.huntType === "FW_ATTACK_PATTERN" && <AttackPatternPicker value={form.techniques} onChange={(techniques) => set({ techniques })} error={tried ? (problem ?? undefined) : undefined} />}
          {targets.length > 0 && (
            <NativeSelect
              label="Index searched"
              value={form.indexTarget ?? targets[0]}
              onChange={(e) => set({ indexTarget: e.currentTarget.value as HuntIndexTarget })}
              data={targets.map((t) => ({ value: t, label: INDEX_LABELS[t] }))}
            />
          )}
          {id === undefined && (
            <NativeSelect
              label="Schedule"
              description="Custom cron schedules are set on the hunt's page"
              value={form.schedule}
              onChange={(e) => set({ schedule: e.currentTarget.value as HuntFrequency | "" })}
              data={[
                { value: "", label: "Not scheduled (run by hand)" },
                { value: "HOURLY", label: "Hourly" },
                { value: "DAILY", label: "Daily" },
                { value: "WEEKLY", label: "Weekly" },
              ]}
            />
          )}
          <Switch
            label="Active: its schedule runs it"
            checked={form.status === "ACTIVE"}
            onChange={(e) => set({ status: e.currentTarget.checked ? "ACTIVE" : "PAUSED" })}
          />
          {error && !refused && <ErrorAlert error={error} title="The hunt was not saved" />}
          <Group>
            <Button type="submit" loading={created.fetching || updated.fetching}>
              {id === undefined ? "Create hunt" : "Save hunt"}
            </Button>
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}
