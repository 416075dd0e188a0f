import { Box, Code, Combobox, Text, TextInput, useCombobox } from "@mantine/core";
import { useEffect, useMemo, useRef, useState } from "react";
import type { CombinedError } from "urql";
import { applySuggestion, suggestFields, type SearchField } from "./query.ts";

export interface QueryError {
  message: string;
  /** 0-based offset into the query where the parser stopped; null when it named none. */
  offset: number | null;
}

/** The API's refusal of a Lucene query (`invalid_query`, with the parser's position), if that is what the error is. */
export function queryErrorOf(error: CombinedError | undefined): QueryError | null {
  const e = error?.graphQLErrors.find((g) => g.extensions?.code === "invalid_query");
  if (!e) return null;
  const position = e.extensions?.position as { offset?: unknown } | undefined;
  return { message: e.message, offset: typeof position?.offset === "number" ? position.offset : null };
}

interface QueryBoxProps {
  value: string;
  onChange(value: string): void;
  /** Enter in the box (when no completion is chosen). */
  onSubmit(): void;
  fields: readonly SearchField[];
  error: QueryError | null;
  label?: string;
}

/**
 * The Lucene box: completes field names from the search layer's field list (the word at the
 * cursor; Arrow keys and Enter pick one), and marks where a rejected query fails: the text is
 * selected from that position, and repeated under the box with the position highlighted.
 */
export function QueryBox({ value, onChange, onSubmit, fields, error, label = "Query" }: QueryBoxProps) {
  const combobox = useCombobox({ onDropdownClose: () => combobox.resetSelectedOption() });
  const input = useRef<HTMLInputElement>(null);
  const [cursor, setCursor] = useState(value.length);
  const suggestions = useMemo(() => suggestFields(fields, value, cursor), [fields, value, cursor]);

  // A new error puts the caret where the parser stopped, selecting the character there.
  useEffect(() => {
    if (error?.offset == null || !input.current) return;
    const at = Math.min(error.offset, value.length);
    input.current.focus();
    input.current.setSelectionRange(at, Math.min(at + 1, value.length));
    // Only when a new error arrives (not `value`): typing afterwards must not move the caret back.
  }, [error]);

  const pick = (name: string) => {
    const next = applySuggestion(value, cursor, name);
    onChange(next.text);
    setCursor(next.cursor);
    combobox.closeDropdown();
    requestAnimationFrame(() => input.current?.setSelectionRange(next.cursor, next.cursor));
  };

  return (
    <Box>
      <Combobox store={combobox} onOptionSubmit={pick} withinPortal>
        <Combobox.Target withExpandedAttribute>
          <TextInput
            ref={input}
            label={label}
            placeholder="type:ip-dst AND tags.name:tlp*"
            value={value}
            spellCheck={false}
            autoComplete="off"
            styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
            error={error ? error.message : undefined}
            onChange={(e) => {
              onChange(e.currentTarget.value);
              setCursor(e.currentTarget.selectionStart ?? e.currentTarget.value.length);
              combobox.openDropdown();
              combobox.updateSelectedOptionIndex();
            }}
            onSelect={(e) => setCursor(e.currentTarget.selectionStart ?? 0)}
            onBlur={() => combobox.closeDropdown()}
            onKeyDown={(e) => {
              if (e.key !== "Enter" || e.nativeEvent.isComposing) return;
              if (combobox.dropdownOpened && suggestions.length > 0 && combobox.getSelectedOptionIndex() !== -1) return;
              e.preventDefault();
              combobox.closeDropdown();
              onSubmit();
            }}
          />
        </Combobox.Target>
        <Combobox.Dropdown hidden={suggestions.length === 0} aria-label="Field names">
          <Combobox.Options>
            {suggestions.map((s) => (
              <Combobox.Option value={s.name} key={s.name}>
                <Text size="sm" ff="monospace" span>
                  {s.name}
                </Text>{" "}
                <Text size="xs" c="dimmed" span>
                  {s.detail}
                </Text>
              </Combobox.Option>
            ))}
          </Combobox.Options>
        </Combobox.Dropdown>
      </Combobox>
      {error?.offset != null && <ErrorMark query={value} offset={error.offset} />}
    </Box>
  );
}

/** The query with the character where parsing failed highlighted (or a marker past its end). */
function ErrorMark({ query, offset }: { query: string; offset: number }) {
  const at = Math.min(offset, query.length);
  const [before, char, after] = [query.slice(0, at), query.slice(at, at + 1), query.slice(at + 1)];
  return (
    <Box mt={4}>
      <Text size="xs" c="red.9">
        {at < query.length ? `The query fails at character ${at + 1}:` : "The query ends too early:"}
      </Text>
      <Code block style={{ whiteSpace: "pre-wrap", wordBreak: "break-all" }} c="dark">
        {before}
        <mark data-testid="query-error-mark" style={{ background: "var(--mantine-color-red-1)", color: "var(--mantine-color-red-9)", outline: "1px solid var(--mantine-color-red-8)" }}>
          {char || "\u2038"}
        </mark>
        {after}
      </Code>
    </Box>
  );
}
