import { Code, Text } from "@mantine/core";
import type { CSSProperties, ReactNode } from "react";

const LIST: CSSProperties = { listStyle: "none", margin: 0, paddingLeft: "1rem", borderLeft: "1px solid var(--mantine-color-gray-3)" };
const ITEM: CSSProperties = { margin: "2px 0", overflowWrap: "anywhere" };

/**
 * A JSON value as nested lists a reader can follow (keys in bold, arrays numbered). Values are
 * React text nodes, never HTML: a document's strings are shown exactly as stored.
 */
export function JsonTree({ value, label }: { value: unknown; label?: string }) {
  return (
    <div aria-label={label} role={label ? "group" : undefined} style={{ fontSize: "var(--mantine-font-size-sm)" }}>
      <Node value={value} />
    </div>
  );
}

function Node({ value }: { value: unknown }): ReactNode {
  if (Array.isArray(value)) {
    if (value.length === 0) return <Scalar text="[]" />;
    return (
      <ul style={LIST}>
        {value.map((v, i) => (
          <li key={i} style={ITEM}>
            <Entry name={`${i + 1}.`} value={v} />
          </li>
        ))}
      </ul>
    );
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return <Scalar text="{}" />;
    return (
      <ul style={LIST}>
        {entries.map(([k, v]) => (
          <li key={k} style={ITEM}>
            <Entry name={k} value={v} />
          </li>
        ))}
      </ul>
    );
  }
  return <Scalar text={value === null || value === undefined ? "null" : String(value)} />;
}

function Entry({ name, value }: { name: string; value: unknown }) {
  const nested = value !== null && typeof value === "object" && (Array.isArray(value) ? value.length > 0 : Object.keys(value).length > 0);
  return (
    <>
      <Text span fw={700} size="sm">
        {name}
      </Text>
      {nested ? <Node value={value} /> : <> <Node value={value} /></>}
    </>
  );
}

function Scalar({ text }: { text: string }) {
  return (
    <Code style={{ whiteSpace: "pre-wrap", wordBreak: "break-word" }} c="dark">
      {text}
    </Code>
  );
}
