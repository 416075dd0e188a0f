import { queryFromInfo } from "@pothos/plugin-prisma";
import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { contractInput } from "../../graphql/inputs.ts";
import { P2_DEFAULT_SIZE } from "../galaxies/index.ts";
import { tagCreateContract, tagListContract, tagUpdateContract } from "./tags.contracts.ts";
import { parseMachineTag, type MachineTag } from "./machine-tag.ts";
import { tagSuggestContract, type TagSuggestion } from "./tag-suggestions.ts";
import { PAGE_DOC, pageType } from "../../graphql/page.ts";

const TAG_DOC = {
  name: "The tag's name, unique (for example tlp:amber, or misp-galaxy:<type>=\"<value>\")",
  colour: "Display colour, #rrggbb",
  exportable: "Included in exports",
  hideTag: "Hidden from tag lists and pickers (REST hide_tag)",
  isGalaxy: "A galaxy cluster's tag (REST is_galaxy)",
  isCustomGalaxy: "A tag of a custom (local) galaxy (REST is_custom_galaxy)",
  localOnly: "Only attached locally, never shared beyond this instance (REST local_only)",
  numericalValue: "A numeric value for ordering or scoring; null if none (REST numerical_value)",
  orgId: "Restricted to this organisation's use; null: anyone's (REST org_id)",
  userId: "Restricted to this user's use; null: anyone's (REST user_id)",
} as const;

const MachineTagType = builder.objectRef<MachineTag>("MachineTag").implement({
  description: 'A MISP machine tag\'s parts: namespace:predicate="value" (tlp:amber has no value)',
  fields: (t) => ({
    namespace: t.exposeString("namespace", { description: "Before the first colon (tlp, misp-galaxy, admiralty-scale)" }),
    predicate: t.exposeString("predicate", { description: "After the colon, before =\"...\" (amber, threat-actor, source-reliability)" }),
    value: t.exposeString("value", { nullable: true, description: "Between the quotes after =; null for a two-part tag" }),
  }),
});

const TagSuggestionType = builder.objectRef<TagSuggestion>("TagSuggestion").implement({
  description: "A tag to offer while the user types one, with its taxonomy's meaning",
  fields: (t) => ({
    tagId: t.exposeInt("tagId", { description: "Numeric id of the tag" }),
    name: t.exposeString("name", { description: TAG_DOC.name }),
    colour: t.exposeString("colour", { description: TAG_DOC.colour }),
    taxonomy: t.exposeString("taxonomy", { nullable: true, description: "The enabled taxonomy it belongs to (its namespace); null for other tags" }),
    expanded: t.exposeString("expanded", { nullable: true, description: "The taxonomy's human-readable name of the tag" }),
    description: t.exposeString("description", { nullable: true, description: "The taxonomy's description of the tag" }),
    numericalValue: t.exposeInt("numericalValue", { nullable: true, description: "The taxonomy's numerical value (else the tag's own)" }),
    machineTag: t.field({ type: MachineTagType, nullable: true, description: "The name's machine-tag parts; null for a plain tag", resolve: (s) => parseMachineTag(s.name) }),
  }),
});

const TagType = builder.prismaObject("Tag", {
  description: "A tag that can be attached to events and attributes",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "Numeric id of the tag" }),
    name: t.exposeString("name", { description: TAG_DOC.name }),
    colour: t.exposeString("colour", { description: TAG_DOC.colour }),
    exportable: t.exposeBoolean("exportable", { description: TAG_DOC.exportable }),
    hideTag: t.exposeBoolean("hideTag", { description: TAG_DOC.hideTag }),
    isGalaxy: t.exposeBoolean("isGalaxy", { description: TAG_DOC.isGalaxy }),
    isCustomGalaxy: t.exposeBoolean("isCustomGalaxy", { description: TAG_DOC.isCustomGalaxy }),
    localOnly: t.exposeBoolean("localOnly", { description: TAG_DOC.localOnly }),
    numericalValue: t.exposeInt("numericalValue", { nullable: true, description: TAG_DOC.numericalValue }),
    orgId: t.exposeInt("orgId", { nullable: true, description: TAG_DOC.orgId }),
    userId: t.exposeInt("userId", { nullable: true, description: TAG_DOC.userId }),
    machineTag: t.field({
      type: MachineTagType,
      nullable: true,
      description: "The name's machine-tag parts; null for a plain tag",
      select: { name: true },
      resolve: (tag) => parseMachineTag(tag.name),
    }),
  }),
});

const TagPage = pageType("TagPage", TagType, "tags");

const TagInput = builder.inputType("TagInput", {
  description: "Tag fields. Create: name required. Update: the fields given (null clears a nullable one)",
  fields: (t) => ({
    name: t.string({ description: TAG_DOC.name }),
    colour: t.string({ description: `${TAG_DOC.colour} (default: one derived from the name)` }),
    exportable: t.boolean({ description: TAG_DOC.exportable }),
    hideTag: t.boolean({ description: TAG_DOC.hideTag }),
    isGalaxy: t.boolean({ description: TAG_DOC.isGalaxy }),
    isCustomGalaxy: t.boolean({ description: TAG_DOC.isCustomGalaxy }),
    localOnly: t.boolean({ description: TAG_DOC.localOnly }),
    numericalValue: t.int({ description: TAG_DOC.numericalValue }),
    orgId: t.int({ description: TAG_DOC.orgId }),
    userId: t.int({ description: TAG_DOC.userId }),
  }),
});

const TAG_ID = "Numeric id of the tag";

builder.queryFields((t) => ({
  tags: t.field({
    extensions: cost.page("size"),
    type: TagPage,
    description: "Tags by name (size up to 1000, default 20; filter: case-insensitive substring of the name)",
    args: {
      page: t.arg.int({ defaultValue: 1, description: PAGE_DOC.page }),
      size: t.arg.int({ defaultValue: P2_DEFAULT_SIZE, description: PAGE_DOC.size(P2_DEFAULT_SIZE, 1000) }),
      filter: t.arg.string({ description: "Part of the name, case-insensitive (at most 255 characters)" }),
      hidden: t.arg.boolean({ description: "Only hidden (true) or visible (false) tags; omitted: both" }),
    },
    resolve: (_r, a, ctx, info) =>
      ctx.services.tags.list(caller(ctx), contractInput(tagListContract, a), queryFromInfo({ context: ctx, info, path: ["items"] })),
  }),
  tagSuggestions: t.field({
    type: [TagSuggestionType],
    description: "Tags to offer while the user types one: name, predicate or value starting with the text; names first, then enabled taxonomies' tags",
    args: {
      text: t.arg.string({ required: true, description: "What the user typed (1 to 255 characters)" }),
      limit: t.arg.int({ defaultValue: 20, description: "Suggestions at most, 1 to 100" }),
    },
    resolve: (_r, a, ctx) => ctx.services.tags.suggest(caller(ctx), contractInput(tagSuggestContract, a)),
  }),
  tag: t.prismaField({
    type: "Tag",
    description: "One tag",
    args: { id: t.arg.int({ required: true, description: TAG_ID }) },
    resolve: (query, _r, a, ctx) => ctx.services.tags.get(caller(ctx), a.id, query),
  }),
}));

builder.mutationFields((t) => ({
  createTag: t.prismaField({
    type: "Tag",
    description: "Create a tag",
    args: { input: t.arg({ type: TagInput, required: true, description: "The tag: name required" }) },
    resolve: (query, _r, a, ctx) => ctx.services.tags.create(caller(ctx), contractInput(tagCreateContract, a.input), query),
  }),
  updateTag: t.prismaField({
    type: "Tag",
    description: "Change a tag: only the fields given",
    args: { id: t.arg.int({ required: true, description: TAG_ID }), input: t.arg({ type: TagInput, required: true, description: "The fields to change" }) },
    resolve: (query, _r, a, ctx) => ctx.services.tags.update(caller(ctx), a.id, contractInput(tagUpdateContract, a.input), query),
  }),
  deleteTag: t.boolean({
    description: "Deletes the tag and its links to events and attributes; true when done",
    args: { id: t.arg.int({ required: true, description: TAG_ID }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.tags.delete(caller(ctx), a.id);
      return true;
    },
  }),
}));
