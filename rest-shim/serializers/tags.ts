import { z } from "zod";
import { parseMachineTag, type TagRecord } from "../../src/modules/tags/index.ts";
import { named, pageSchema } from "../contract.ts";

/** Beside the peer's tag fields, wherever a tag is answered (its records, and as attached to events and attributes). */
export const MachineTagSchema = z
  .object({ namespace: z.string(), predicate: z.string(), value: z.string().nullable() })
  .nullable()
  .describe('The name\'s MISP machine-tag parts (namespace:predicate="value"); null for a plain tag. Beside the peer\'s fields');

export const TagRecordSchema = named(
  "Tag",
  z.object({
    id: z.int(),
    name: z.string(),
    colour: z.string().describe("#rrggbb"),
    exportable: z.boolean(),
    org_id: z.int().nullable(),
    user_id: z.int().nullable(),
    hide_tag: z.boolean(),
    numerical_value: z.number().nullable(),
    is_galaxy: z.boolean().describe("A galaxy cluster's tag (misp-galaxy:...)"),
    is_custom_galaxy: z.boolean(),
    local_only: z.boolean().describe("Never shared beyond this instance"),
    machine_tag: MachineTagSchema,
  }),
  "A tag (the peer's Tag fields)",
  {
    id: 12,
    name: "tlp:amber",
    colour: "#ffc000",
    exportable: true,
    org_id: null,
    user_id: null,
    hide_tag: false,
    numerical_value: null,
    is_galaxy: false,
    is_custom_galaxy: false,
    local_only: false,
    machine_tag: { namespace: "tlp", predicate: "amber", value: null },
  },
);

export const TagPageSchema = pageSchema("TagPage", TagRecordSchema);

/** The peer's Tag fields. */
export function tagRecordOut(t: TagRecord): z.output<typeof TagRecordSchema> {
  return {
    id: t.id,
    name: t.name,
    colour: t.colour,
    exportable: t.exportable,
    org_id: t.orgId,
    user_id: t.userId,
    hide_tag: t.hideTag,
    numerical_value: t.numericalValue,
    is_galaxy: t.isGalaxy,
    is_custom_galaxy: t.isCustomGalaxy,
    local_only: t.localOnly,
    machine_tag: parseMachineTag(t.name),
  };
}
