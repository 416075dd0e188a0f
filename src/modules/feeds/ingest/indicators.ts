import type { Readable } from "node:stream";
import { detectIndicator } from "./detect-type.ts";
import { readLines, splitCsvLine } from "./lines.ts";
import { unstorable } from "./text.ts";
import type { FeedSettings } from "../feed-schema.ts";

/** One row of a csv, json or freetext feed: an indicator, or the reason it was refused. */
export type Row = { where: string; type: string; value: string } | { where: string; rejected: string };

/** JSON array feeds are parsed whole; larger ones must be NDJSON. */
export const MAX_JSON_ARRAY_BYTES = 64 * 1024 * 1024;

function typed(where: string, value: string, fixedType: string | undefined): Row {
  const bad = unstorable(value);
  if (bad) return { where, rejected: `the value ${bad}` };
  if (fixedType && unstorable(fixedType)) return { where, rejected: `the type ${unstorable(fixedType)}` };
  if (fixedType) return { where, type: fixedType, value: value.trim() };
  const d = detectIndicator(value);
  return d ? { where, ...d } : { where, rejected: "no indicator recognised" };
}

/** Freetext: one indicator per line; `#` comments and blank lines are skipped. */
export async function* freetextRows(stream: Readable, settings: FeedSettings): AsyncGenerator<Row> {
  const cfg = settings.freetextConfig;
  const fixed = cfg?.type_detection === "fixed" ? cfg.fixed_type : undefined;
  for await (const line of readLines(stream)) {
    const where = `line ${line.number}`;
    if ("tooLong" in line) {
      yield { where, rejected: "line too long" };
      continue;
    }
    const text = line.text.trim();
    if (text === "" || text.startsWith("#")) continue;
    yield typed(where, text, fixed);
  }
}

/** CSV: the value column (default 0), an optional header line, `#` comments; the type fixed, from a column or detected. */
export async function* csvRows(stream: Readable, settings: FeedSettings): AsyncGenerator<Row> {
  const cfg = settings.csvConfig;
  const delimiter = cfg?.delimiter ?? ",";
  const valueColumn = cfg?.attribute?.value_column ?? 0;
  const type = cfg?.attribute?.type;
  let headerPending = cfg?.header ?? false;
  for await (const line of readLines(stream)) {
    const where = `line ${line.number}`;
    if ("tooLong" in line) {
      yield { where, rejected: "line too long" };
      continue;
    }
    if (line.text.trim() === "" || line.text.startsWith("#")) continue;
    if (headerPending) {
      headerPending = false;
      continue;
    }
    const cells = splitCsvLine(line.text, delimiter);
    const value = cells[valueColumn];
    if (value === undefined || value === "") {
      yield { where, rejected: `no value in column ${valueColumn}` };
      continue;
    }
    const fixedType = type?.strategy === "fixed" ? type.value : type?.strategy === "column" && type.column !== undefined ? cells[type.column] : undefined;
    if (type?.strategy === "column" && !fixedType) {
      yield { where, rejected: `no type in column ${type.column}` };
      continue;
    }
    yield typed(where, value, fixedType);
  }
}

/** JSON: an array (at `items_path`) or NDJSON; items are strings or objects with the value at `attribute.value`. */
export async function* jsonRows(stream: Readable, settings: FeedSettings): AsyncGenerator<Row> {
  const cfg = settings.jsonConfig;
  const valuePath = cfg?.attribute?.value ?? "value";
  const type = cfg?.attribute?.type;
  const item = (where: string, it: unknown): Row => {
    const value = typeof it === "string" ? it : pick(it, valuePath);
    if (typeof value !== "string" && typeof value !== "number") return { where, rejected: `no string at ${valuePath}` };
    const fixedType = type?.strategy === "fixed" ? type.value : type?.strategy === "field" && type.field ? pick(it, type.field) : undefined;
    if (type?.strategy === "field" && typeof fixedType !== "string") return { where, rejected: `no type at ${type.field}` };
    return typed(where, String(value), fixedType as string | undefined);
  };
  if (cfg?.format === "ndjson") {
    for await (const line of readLines(stream)) {
      const where = `line ${line.number}`;
      if ("tooLong" in line) {
        yield { where, rejected: "line too long" };
        continue;
      }
      if (line.text.trim() === "") continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line.text);
      } catch {
        yield { where, rejected: "not JSON" };
        continue;
      }
      yield item(where, parsed);
    }
    return;
  }
  const doc = JSON.parse(await readCapped(stream, MAX_JSON_ARRAY_BYTES, "JSON array feeds"));
  const items = cfg?.items_path ? pick(doc, cfg.items_path) : doc;
  if (!Array.isArray(items)) throw new Error(`the JSON document has no array${cfg?.items_path ? ` at ${cfg.items_path}` : ""}`);
  for (const [i, it] of items.entries()) yield item(`item ${i}`, it);
}

function pick(obj: unknown, dotted: string): unknown {
  let cur = obj;
  for (const k of dotted.split(".")) {
    if (cur === null || typeof cur !== "object" || !Object.hasOwn(cur, k)) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

/** Reads a whole (small) stream as UTF-8, failing past `max` bytes. */
export async function readCapped(stream: Readable, max: number, what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) {
      stream.destroy();
      throw new Error(`${what} may be at most ${max} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}
