import { z } from "zod";
import { detectIndicator } from "../../src/modules/feeds/index.ts";
import { WARNINGLIST_CHECK_MAX } from "../../src/modules/warninglists/index.ts";
import { AppError, errors, parseInput } from "../../src/platform/errors.ts";
import { named } from "../contract.ts";
import { defineMispRoute, eventUuidOf, mispBool, mispRef, namedParams } from "./misp-route.ts";
import { MispAttributeSchema, mispAttribute } from "./misp-shapes.ts";

/** Indicators one free-text import reads at most (the rest of the text is left unread). */
const MAX_FREE_TEXT_INDICATORS = 1000;
const MAX_TEXT = 1_000_000;

/** MISP's adhereToWarninglists: false, true (drop what a list holds) or "soft" (keep it, to_ids off). */
const adhere = z.union([mispBool, z.literal("soft")]);
const level = z.union([z.number().int(), z.string().regex(/^-?\d{1,10}$/).transform(Number)]);
const freeTextInput = z
  .object({
    value: z.string().max(MAX_TEXT),
    adhereToWarninglists: adhere.optional(),
    distribution: level.refine((n) => n >= 0 && n <= 5, "must be 0 to 5").optional(),
    sharing_group_id: level.transform((n) => (n === 0 ? null : n)).nullable().optional(),
    returnMetaAttributes: mispBool.optional(),
  })
  .loose();

/** Defang markers (feeds' refang turns them back) and the spaces analysts put around them. */
const SPACED_MARKER = /[ \t]*(\[\.\]|\(\.\)|\{\.\}|\[dot\]|\(dot\)|\{dot\}|\[@\]|\(@\)|\[at\]|\(at\)|\{at\})[ \t]*/gi;
const SPACED_SCHEME = /\b(hxxps?|https?|fxp|ftp)[ \t]*(\[:\]|:)[ \t]*(\/\/|\[\/\]\[\/\])[ \t]*/gi;

/**
 * Defanging written with spaces (`1.2.3 [.] 4`, `example [.] com`, `hxxp :// host`) closed up, so
 * that each indicator is one token; a marker stands for a character of the indicator, never between two.
 */
export const closeDefanged = (text: string) => text.replace(SPACED_MARKER, "$1").replace(SPACED_SCHEME, "$1$2$3");

/** The indicators of a text as MISP's free-text parser finds them (feeds' refang and detection, each token alone), once each. */
function freeTextIndicators(text: string): { type: string; value: string }[] {
  const seen = new Map<string, { type: string; value: string }>();
  for (const token of closeDefanged(text).split(/[\s,;]+/)) {
    if (seen.size >= MAX_FREE_TEXT_INDICATORS) break;
    // A sentence's full stop is no part of what it ends with.
    const d = token ? detectIndicator(token.replace(/\.+$/, "")) : null;
    if (d && !seen.has(`${d.type}\u0000${d.value}`)) seen.set(`${d.type}\u0000${d.value}`, d);
  }
  return [...seen.values()];
}

/** MISP accepts the text bare, as `{"value": ...}` or under `Attribute`. */
function freeTextBody(body: unknown): unknown {
  if (typeof body === "string") return { value: body };
  if (body && typeof body === "object" && !Array.isArray(body) && "Attribute" in body) {
    const inner = (body as { Attribute: unknown }).Attribute;
    return typeof inner === "string" ? { value: inner } : inner;
  }
  return body;
}

const MetaSchema = z.object({ value: z.string(), category: z.string(), to_ids: z.boolean(), default_type: z.string(), types: z.record(z.string(), z.string()) });
const MispFreeTextSchema = named(
  "MispFreeText",
  z.union([z.array(z.object({ Attribute: MispAttributeSchema })), z.array(MetaSchema)]),
  "The attributes created, each as {\"Attribute\": {...}}; with returnMetaAttributes, what was found (value, default_type, category, to_ids) and nothing created",
);

export const mispFreeTextRoutes = [
  defineMispRoute({
    method: "POST", path: "/misp/events/freeTextImport/{event_id}", operationId: "mispFreeTextImport",
    summary: `MISP events/freeTextImport: the indicators of a text (refanged and typed as feeds do; at most ${MAX_FREE_TEXT_INDICATORS}) added to the event as attributes, each alone (a refused one, such as a duplicate, is left out); adhereToWarninglists true leaves out values on an enabled warninglist, soft keeps them with to_ids off; returnMetaAttributes answers what was found and creates nothing`,
    scopes: ["attributes:create"], params: z.object({ event_id: mispRef }).strict(), status: 200, response: MispFreeTextSchema, body: z.unknown(),
    query: namedParams({ adhereToWarninglists: adhere.optional(), returnMetaAttributes: mispBool.optional() }),
    misp: { notFound: "Invalid event.", forbidden: "You do not have permission to do that.", saveFailed: "freeTextImport Event", positional: ["adhereToWarninglists", "returnMetaAttributes"] },
    handler: async ({ principal, params, query, body, services }) => {
      const eventUuid = await eventUuidOf(services, principal, params.event_id);
      if ((await services.events.get(principal, eventUuid)).deleted) throw errors.notFound("Event");
      const q = parseInput(freeTextInput, freeTextBody(body) ?? {});
      const found = freeTextIndicators(q.value);
      const catalogue = services.attributes.catalogue(principal);
      if (q.returnMetaAttributes ?? query.returnMetaAttributes) {
        return found.map((f) => {
          const t = catalogue.types.get(f.type);
          return { value: f.value, category: t?.defaultCategory ?? "Other", to_ids: t?.toIds ?? false, default_type: f.type, types: { [f.type]: f.type } };
        });
      }
      const mode = q.adhereToWarninglists ?? query.adhereToWarninglists ?? false;
      const listed = new Set<string>();
      if (mode !== false) {
        for (const type of new Set(found.map((f) => f.type))) {
          const values = found.filter((f) => f.type === type).map((f) => f.value);
          for (let i = 0; i < values.length; i += WARNINGLIST_CHECK_MAX) {
            const checked = await services.warninglists.check(principal, { type, values: values.slice(i, i + WARNINGLIST_CHECK_MAX) });
            for (const c of checked) if (c.warnings.length) listed.add(`${type}\u0000${c.value}`);
          }
        }
      }
      // MISP refuses an attribute the event already holds (same type and value, standalone, live).
      const { Event: stored } = await services.events.exportMisp(principal, eventUuid);
      const held = new Set(((stored.Attribute ?? []) as { type: string; value: string; deleted: boolean }[]).filter((a) => !a.deleted).map((a) => `${a.type}\u0000${a.value}`));
      const created = [];
      for (const f of found) {
        const onList = listed.has(`${f.type}\u0000${f.value}`);
        if ((onList && mode === true) || held.has(`${f.type}\u0000${f.value}`)) continue;
        try {
          const a = await services.attributes.create(principal, {
            eventUuid, type: f.type, value: f.value,
            ...(onList ? { toIds: false } : {}),
            ...(q.distribution !== undefined ? { distribution: q.distribution } : {}),
            ...(q.sharing_group_id !== undefined ? { sharingGroupId: q.sharing_group_id } : {}),
          });
          created.push({ Attribute: mispAttribute(a) });
        } catch (err) {
          // As MISP counts an attribute it could not save and goes on (a duplicate, say).
          if (!(err instanceof AppError) || !["validation_error", "conflict", "bad_request"].includes(err.code)) throw err;
        }
      }
      return created;
    },
  }),
];
