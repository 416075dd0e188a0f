import { MultiSelect } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useMemo, useState } from "react";
import { useQuery } from "urql";
import { apiMessage } from "../../components/ErrorAlert.tsx";
import { graphql } from "../../gql/index.ts";

const AttackPatterns = graphql(`
  query AttackPatterns($filter: String) {
    mitreAttackPatterns(filter: $filter) {
      uuid
      value
      externalId
    }
  }
`);

/** The techniques of a hunt query: codes where the cluster has one, else its uuid. */
export function techniquesOf(query: string): string[] {
  return query
    .split(/[,\n]/)
    .map((t) => t.trim())
    .filter(Boolean);
}

/**
 * Picks ATT&CK techniques from the imported galaxy (mitreAttackPatterns, searched on the server by
 * name or code); the hunt's query is the picked codes, comma-separated.
 */
export function AttackPatternPicker({ value, onChange, error }: { value: string[]; onChange(codes: string[]): void; error?: string }) {
  const [search, setSearch] = useState("");
  const [filter] = useDebouncedValue(search.trim(), 250);
  const [{ data, error: loadError }] = useQuery({ query: AttackPatterns, variables: { filter: filter || null } });
  const options = useMemo(() => {
    const found = (data?.mitreAttackPatterns ?? []).map((p) => ({ value: p.externalId ?? p.uuid, label: p.value }));
    const known = new Set(found.map((o) => o.value));
    // Picked techniques stay listed (and named) while the search shows others.
    const picked = value.filter((v) => !known.has(v)).map((v) => ({ value: v, label: v }));
    return [...picked, ...found];
  }, [data, value]);
  const empty = data && data.mitreAttackPatterns.length === 0 && !filter;

  return (
    <MultiSelect
      label="ATT&CK techniques"
      description="Search by name or code (T1059); hits are events or attributes tagged with a picked technique."
      placeholder={value.length ? undefined : "Search techniques"}
      data={options}
      value={value}
      onChange={onChange}
      searchable
      searchValue={search}
      onSearchChange={setSearch}
      filter={({ options: all }) => all}
      hidePickedOptions
      clearable
      maxDropdownHeight={280}
      nothingFoundMessage={empty ? "No ATT&CK galaxy is imported: an administrator imports and enables it." : "No technique matches"}
      error={loadError ? apiMessage(loadError) : error}
    />
  );
}
