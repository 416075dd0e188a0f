import { z } from "zod";
import { p2PageFields } from "../galaxies/index.ts";
import { containsFilter } from "../../platform/contract-fields.ts";

/**
 * The input contracts of the tag catalogue, in the service's vocabulary: the service checks every
 * caller's input with them (REST derives its bodies, GraphQL checks TagInput and its list arguments);
 * whether the named organisation or user exists needs the database and stays in the service.
 */
const CONTROL = /[\u0000-\u001f\u007f]/;
export const MAX_TAG_NAME = 255;
const COLOUR = /^#[0-9a-fA-F]{6}$/;
const INT32_MAX = 2_147_483_647;
/** Tags one set-based lookup answers at most. */
export const MAX_TAG_LOOKUP = 1000;
/** Tags counted in one answer at most: MISP's tags/index answers the whole catalogue (here up to this many). */
export const MAX_TAG_USAGE = 100_000;

/** A tag name: trimmed, 1 to 255 characters, no control characters (NUL bytes included). */
export const tagName = z
  .string()
  .trim()
  .refine((s) => !s.includes("\0"), "must not contain NUL bytes")
  .refine((s) => s.includes("\0") || !CONTROL.test(s), "must not contain control characters")
  .max(MAX_TAG_NAME, `must be at most ${MAX_TAG_NAME} characters`)
  .min(1, "must not be empty")
  .describe("The tag's name, unique (for example tlp:amber, or misp-galaxy:<type>=\"<value>\"), 1 to 255 characters");

const positiveId = z.number().int().min(1, `must be an integer from 1 to ${INT32_MAX}`).max(INT32_MAX, `must be an integer from 1 to ${INT32_MAX}`);

const tagFields = {
  colour: z.string().regex(COLOUR, "must be a colour #rrggbb").optional().describe("Display colour, #rrggbb"),
  exportable: z.boolean().optional().describe("Included in exports"),
  hideTag: z.boolean().optional().describe("Hidden from tag lists and pickers"),
  isGalaxy: z.boolean().optional().describe("A galaxy cluster's tag"),
  isCustomGalaxy: z.boolean().optional().describe("A tag of a custom (local) galaxy"),
  localOnly: z.boolean().optional().describe("Only attached locally, never shared beyond this instance"),
  numericalValue: z.number().int().min(-2_147_483_648).max(INT32_MAX).nullable().optional().describe("A numeric value for ordering or scoring; null: none"),
  orgId: positiveId.nullable().optional().describe("Restricted to this organisation's use; null: anyone's (without tags:admin only the caller's own)"),
  userId: positiveId.nullable().optional().describe("Restricted to this user's use; null: anyone's (without tags:admin only the caller)"),
};

export const tagCreateContract = z.object({ name: tagName, ...tagFields }).strict();
export const tagUpdateContract = z.object({ name: tagName.optional(), ...tagFields }).strict();

/** `GET /tags/` and GraphQL `tags`: the peer's P2 paging and the filters. */
export const tagListContract = z
  .object({
    ...p2PageFields,
    filter: containsFilter("name"),
    hidden: z.boolean().optional().describe("Only hidden (true) or visible (false) tags; omitted: both"),
  })
  .strict();

/** A name or pattern looked up (never stored): any length a caller may send, without NUL bytes, which PostgreSQL refuses. */
const lookedUp = z
  .string()
  .max(1024, "must be at most 1024 characters")
  .refine((s) => !s.includes("\0"), "must not contain NUL bytes");
const lookupLimit = z.number().int().min(1).max(MAX_TAG_LOOKUP).default(MAX_TAG_LOOKUP).describe(`At most this many tags (1 to ${MAX_TAG_LOOKUP})`);

/** Tags by exact name, in one statement (MISP's tags/search by a cluster's tag names, strict_tagname, removeTagFromObject). */
export const tagsByNameContract = z
  .object({
    names: z.array(lookedUp).max(MAX_TAG_LOOKUP).describe("Exact tag names"),
    ignoreCase: z.boolean().default(false).describe("Compare lower-cased, as MISP's LOWER(Tag.name)"),
    limit: lookupLimit,
  })
  .strict();

/** Tags whose name matches a SQL LIKE pattern (`%`, `_`), case-insensitive, in one statement (MISP's tags/search). */
export const tagsLikeContract = z
  .object({ patterns: z.array(lookedUp).max(100).describe("LIKE patterns; a backslash is a literal character"), limit: lookupLimit })
  .strict();

/** The tags whose use is counted (MISP's tags/index statistics): every tag of a catalogue answer. */
export const tagUsageContract = z
  .object({ ids: z.array(z.number().int().min(1).max(2_147_483_647)).max(MAX_TAG_USAGE).describe(`Tag ids, at most ${MAX_TAG_USAGE}`) })
  .strict();

export type TagCreate = z.output<typeof tagCreateContract>;
export type TagFields = z.output<typeof tagUpdateContract>;
export type TagListQuery = z.output<typeof tagListContract>;
