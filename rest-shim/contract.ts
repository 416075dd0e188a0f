import { z } from "zod";
import { snakeCase } from "../src/platform/errors.ts";

/**
 * Named output schemas: each becomes one component of /openapi.json (one model per resource in a
 * generated client). Input schemas stay unnamed: their input and output forms differ (transforms).
 * zod's global registry, so that `.describe()` and `.meta()` on fields reach the document too.
 */
export const schemaRegistry = z.globalRegistry;

/** `example`: a realistic value, shown in /openapi.json and checked against the schema by its test. */
export function named<T extends z.ZodType>(id: string, schema: T, description?: string, example?: z.output<T>): T {
  schemaRegistry.add(schema, { id, ...(description ? { description } : {}), ...(example === undefined ? {} : { examples: [example] }) });
  return schema;
}

/** ISO 8601 timestamps in UTC as the serializers write them (`toISOString()`). */
export const timestamp = z.iso.datetime({ offset: true });
export const nullableTimestamp = timestamp.nullable();

/** The peer's P1 envelope, `{items, total, page, size, pages}` (unnamed, for envelopes that add to it). */
export function pageObject<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), total: z.int().min(0), page: z.int().min(1), size: z.int().min(1), pages: z.int().min(0) });
}

/** The P1 envelope of `item`, as a named schema. */
export function pageSchema<T extends z.ZodType>(id: string, item: T) {
  return named(id, pageObject(item));
}

/** A plain `{message}` answer (publish, unpublish, deletions the peer confirms in words). */
export const messageSchema = named("Message", z.object({ message: z.string() }));

/** A file part of a multipart body, for the OpenAPI document. */
export const binaryPart = () => z.string().meta({ format: "binary", contentMediaType: "application/octet-stream" });

/** One invalid field, as 422 answers list them (pydantic's shape, which the peer's clients read). */
export const ValidationIssueSchema = named(
  "ValidationIssue",
  z.object({
    type: z.string(),
    loc: z.array(z.union([z.string(), z.int()])).describe("Where: path, query or body, then the field"),
    msg: z.string(),
    input: z.unknown().optional(),
  }),
);

/**
 * A service's input contract on the wire: the same fields under their snake_case names (or
 * `names`), `codecs` for fields whose wire form differs (epoch seconds for a Date), and `extra`
 * fields the peer's clients send that the service ignores. `object` validates a body (strict, so
 * unknown fields are 422s at their place); `fromWire` turns it into the contract's input.
 */
export function wireContract<S extends z.ZodRawShape, X extends z.ZodRawShape = Record<never, z.ZodType>>(
  contract: z.ZodObject<S>,
  opts: { codecs?: Partial<Record<keyof S, z.ZodType>>; names?: Partial<Record<keyof S, string>>; extra?: X } = {},
) {
  const wireName = (key: string) => opts.names?.[key as keyof S] ?? String(snakeCase(key));
  const shape: Record<string, z.core.$ZodType> = { ...opts.extra };
  for (const [key, field] of Object.entries(contract.shape)) shape[wireName(key)] = opts.codecs?.[key as keyof S] ?? (field as z.core.$ZodType);
  const object = z.object(shape).strict();
  const fromWire = (body: Record<string, unknown>): z.output<z.ZodObject<S>> => {
    const input: Record<string, unknown> = {};
    for (const key of Object.keys(contract.shape)) {
      const value = body[wireName(key)];
      if (value !== undefined) input[key] = value;
    }
    return input as z.output<z.ZodObject<S>>;
  };
  return { object, fromWire, schema: object.transform(fromWire) };
}
