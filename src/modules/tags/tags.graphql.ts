import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { errors } from "../../platform/errors.ts";
import { checkP2Page, P2_DEFAULT_SIZE } from "../galaxies/galaxies.service.ts";
import type { TagFields, TagRecord } from "./tags.service.ts";

const TagType = builder.objectRef<TagRecord>("Tag").implement({
  fields: (t) => ({
    id: t.exposeInt("id"),
    name: t.exposeString("name"),
    colour: t.exposeString("colour"),
    exportable: t.exposeBoolean("exportable"),
    hideTag: t.exposeBoolean("hideTag"),
    isGalaxy: t.exposeBoolean("isGalaxy"),
    isCustomGalaxy: t.exposeBoolean("isCustomGalaxy"),
    localOnly: t.exposeBoolean("localOnly"),
    numericalValue: t.exposeInt("numericalValue", { nullable: true }),
    orgId: t.exposeInt("orgId", { nullable: true }),
    userId: t.exposeInt("userId", { nullable: true }),
  }),
});

const TagPage = builder.objectRef<{ items: TagRecord[]; total: number; page: number; size: number; pages: number }>("TagPage").implement({
  fields: (t) => ({
    items: t.field({ type: [TagType], resolve: (p) => p.items }),
    total: t.exposeInt("total"),
    page: t.exposeInt("page"),
    size: t.exposeInt("size"),
    pages: t.exposeInt("pages"),
  }),
});

const TagInput = builder.inputType("TagInput", {
  fields: (t) => ({
    name: t.string(),
    colour: t.string(),
    exportable: t.boolean(),
    hideTag: t.boolean(),
    isGalaxy: t.boolean(),
    isCustomGalaxy: t.boolean(),
    localOnly: t.boolean(),
    numericalValue: t.int(),
    orgId: t.int(),
    userId: t.int(),
  }),
});

type TagInputShape = { [K in keyof TagFields]?: TagFields[K] | null };
const u = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);
const toFields = (i: TagInputShape): TagFields => ({
  name: u(i.name),
  colour: u(i.colour),
  exportable: u(i.exportable),
  hideTag: u(i.hideTag),
  isGalaxy: u(i.isGalaxy),
  isCustomGalaxy: u(i.isCustomGalaxy),
  localOnly: u(i.localOnly),
  numericalValue: i.numericalValue,
  orgId: i.orgId,
  userId: i.userId,
});

builder.queryFields((t) => ({
  tags: t.field({
    extensions: cost.page("size"),
    type: TagPage,
    description: "Tags by name (size up to 1000, default 20; filter: case-insensitive substring of the name)",
    args: { page: t.arg.int({ defaultValue: 1 }), size: t.arg.int({ defaultValue: P2_DEFAULT_SIZE }), filter: t.arg.string(), hidden: t.arg.boolean() },
    resolve: (_r, a, ctx) => {
      const page = a.page ?? 1;
      const size = a.size ?? P2_DEFAULT_SIZE;
      checkP2Page(page, size);
      if (a.filter && a.filter.length > 255) throw errors.invalidField(["args", "filter"], "must be at most 255 characters");
      return ctx.services.tags.list(caller(ctx), { page, size, filter: a.filter, hidden: a.hidden });
    },
  }),
  tag: t.field({
    type: TagType,
    args: { id: t.arg.int({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.tags.get(caller(ctx), a.id),
  }),
}));

builder.mutationFields((t) => ({
  createTag: t.field({
    type: TagType,
    args: { input: t.arg({ type: TagInput, required: true }) },
    resolve: (_r, a, ctx) => {
      if (a.input.name == null) throw errors.invalidField(["input", "name"], "Field required");
      return ctx.services.tags.create(caller(ctx), { ...toFields(a.input), name: a.input.name });
    },
  }),
  updateTag: t.field({
    type: TagType,
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: TagInput, required: true }) },
    resolve: (_r, a, ctx) => ctx.services.tags.update(caller(ctx), a.id, toFields(a.input)),
  }),
  deleteTag: t.boolean({
    description: "Deletes the tag and its links to events and attributes",
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.tags.delete(caller(ctx), a.id);
      return true;
    },
  }),
}));
