import { z } from "zod";

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

/** The peer's P1 envelope, `{items, total, page, size, pages}`. */
export function pageSchema<T extends z.ZodType>(id: string, item: T) {
  return named(
    id,
    z.object({
      items: z.array(item),
      total: z.int().min(0),
      page: z.int().min(1),
      size: z.int().min(1),
      pages: z.int().min(0),
    }),
  );
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
