import { z } from "zod";
import { hasScope, type Principal } from "../../src/auth/principal.ts";
import type { Galaxy, GalaxyCluster } from "../../src/generated/prisma/client.ts";
import type { AttributeView } from "../../src/modules/attributes/index.ts";
import type { EventView, TagView } from "../../src/modules/events/index.ts";
import { AppError, parseInput } from "../../src/platform/errors.ts";
import type { Services } from "../../src/services.ts";
import type { TagRecord } from "../../src/modules/tags/index.ts";
import type { TagIndexTaxonomy, TagTaxonomy } from "../../src/modules/taxonomies/index.ts";
import { named } from "../contract.ts";
import { mispException, mispSaveFailed } from "./misp-errors.ts";
import { defineMispRoute, mispBool, namedParams } from "./misp-route.ts";
import { MispSavedSchema, MispTagSchema, mispSaved, mispTag } from "./misp-shapes.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Tags MISP's index answers at most here (the catalogue's pages of 1000, read in turn). */
const MAX_INDEX_TAGS = 100_000;
const PAGE = 1000;
const CANNOT_ALTER = "Cannot alter the tags of this data, only the organisation that has created the data (orgc) can modify global tags.";

/** The event or attribute a uuid names (MISP looks for an event first), with its tags; MISP's 404 "Invalid Target." otherwise. */
type Target = { kind: "Event"; id: string; uuid: string; tags: TagView[] } | { kind: "Attribute"; id: string; uuid: string; tags: TagView[] };

async function findTarget(services: Services, p: Principal | null, uuid: string): Promise<Target> {
  const notFound = (err: unknown) => {
    if (err instanceof AppError && err.code === "not_found") return null;
    throw err;
  };
  const e: EventView | null = await services.events.get(p, uuid).catch(notFound);
  if (e && !e.deleted) return { kind: "Event", id: String(e.id), uuid, tags: e.tags };
  const a: AttributeView | null = await services.attributes.get(p, uuid).catch(notFound);
  if (a && !a.deleted) return { kind: "Attribute", id: a.id, uuid, tags: a.tags };
  throw mispException(404, "Invalid Target.");
}

const tagRef = z.union([z.string().max(255), z.number().int().min(1).max(2_147_483_647)]);
const tagObjectBody = z
  .object({ uuid: z.string().max(64).optional(), tag: z.union([tagRef, z.array(tagRef).min(1).max(100)]).optional(), local: mispBool.optional(), relationship_type: z.string().max(255).nullable().optional() })
  .loose();

/** The object uuid and tags of a tagging request, with MISP's refusals for missing or malformed ones. */
function tagRequest(body: unknown) {
  const b = parseInput(tagObjectBody, body ?? {});
  if (!b.uuid) throw mispException(405, "Invalid object uuid");
  // MISP lets this one through as a 500 (InvalidArgumentException); a client error it is.
  if (!UUID.test(b.uuid)) throw mispException(400, "Invalid UUID");
  if (b.tag === undefined || b.tag === "") throw mispException(405, "Invalid tag");
  return { uuid: b.uuid.toLowerCase(), tags: Array.isArray(b.tag) ? b.tag : [b.tag], local: b.local ?? false };
}

/** A tag named by MISP's numeric id or by name, as its name; null when no tag has that id. */
export async function tagNameOf(services: Services, p: Principal | null, ref: string | number): Promise<string | null> {
  if (typeof ref === "string" && !/^\d+$/.test(ref)) return ref.trim();
  return services.tags.get(p, Number(ref)).then(
    (t) => t.name,
    (err: unknown) => {
      if (err instanceof AppError && err.code === "not_found") return null;
      throw err;
    },
  );
}

const carried = (target: Target, name: string) => target.tags.find((t) => t.name.toLowerCase() === name.toLowerCase());

async function tagTarget(services: Services, p: Principal | null, target: Target, name: string, local: boolean): Promise<void> {
  await (target.kind === "Event" ? services.events.tag(p, target.uuid, name, local) : services.attributes.tag(p, target.uuid, name, local));
}

/** The target's tags as they are now (their ids, for MISP's messages). */
const reload = (services: Services, p: Principal | null, target: Target) => findTarget(services, p, target.uuid);

/** Tags one tags/search answers at most. */
const MAX_SEARCH_TAGS = 1000;
const tagId = z.object({ tag_id: z.string().regex(/^\d{1,10}$/).transform(Number).refine((n) => n >= 1 && n <= 2_147_483_647) }).strict();
const tagEditFields = z
  .object({
    name: z.string().optional(),
    colour: z.string().optional(),
    exportable: mispBool.optional(),
    hide_tag: mispBool.optional(),
    local_only: mispBool.optional(),
    numerical_value: z.union([z.number().int(), z.string().regex(/^-?\d{1,10}$/).transform(Number)]).nullable().optional(),
  })
  .loose();

/** MISP's tag fields in the service's vocabulary (only those given). */
const tagFields = (t: z.output<typeof tagEditFields>) => ({
  ...(t.name !== undefined ? { name: t.name } : {}),
  ...(t.colour ? { colour: t.colour } : {}),
  ...(t.exportable !== undefined ? { exportable: t.exportable } : {}),
  ...(t.hide_tag !== undefined ? { hideTag: t.hide_tag } : {}),
  ...(t.local_only !== undefined ? { localOnly: t.local_only } : {}),
  ...(t.numerical_value !== undefined ? { numericalValue: t.numerical_value } : {}),
});

/** The taxonomy block of a tag as MISP's tags/search adds it: the Taxonomy, and its predicate with the entries matching the tag (none for a two-part tag). */
function mispTaxonomy(t: TagTaxonomy) {
  const num = (n: number | null) => (n === null ? null : String(n));
  const { taxonomy: x, predicate: pr } = t;
  return {
    Taxonomy: { id: String(x.id), namespace: x.namespace, description: x.description, version: String(x.version), enabled: x.enabled, exclusive: x.exclusive, required: x.required, highlighted: x.highlighted },
    TaxonomyPredicate: {
      id: String(pr.id), taxonomy_id: String(pr.taxonomyId), value: pr.value, expanded: pr.expanded, colour: pr.colour ?? "", description: pr.description ?? "", exclusive: pr.exclusive, numerical_value: num(pr.numericalValue),
      ...(t.entries === null
        ? {}
        : { TaxonomyEntry: t.entries.map((e) => ({ id: String(e.id), taxonomy_predicate_id: String(e.predicateId), value: e.value, expanded: e.expanded, colour: e.colour ?? "", description: e.description ?? "", numerical_value: num(e.numericalValue) })) }),
    },
  };
}

/** A cluster as MISP's tags/search adds it (GalaxyCluster::getCluster: its Galaxy inside, each meta key a list as MISP's elements, the tag's id). */
const metaLists = (meta: unknown) =>
  meta && typeof meta === "object" && !Array.isArray(meta) ? Object.fromEntries(Object.entries(meta).map(([k, v]) => [k, Array.isArray(v) ? v : [v]])) : {};

function mispCluster(c: GalaxyCluster & { galaxy: Galaxy }, tagId: number) {
  const g = c.galaxy;
  const seconds = (d: Date) => String(Math.floor(d.getTime() / 1000));
  return {
    id: String(c.id), uuid: c.uuid, collection_uuid: c.collectionUuid ?? "", type: c.type, value: c.value, tag_name: c.tagName, description: c.description,
    galaxy_id: String(c.galaxyId), source: c.source, authors: c.authors, version: c.version,
    // Imported clusters are MISP's default ones: everyone's, owned by no organisation.
    distribution: "3", sharing_group_id: null, org_id: "0", orgc_id: "0", default: true, locked: false, deleted: false,
    meta: metaLists(c.meta), tag_id: String(tagId),
    Galaxy: {
      id: String(g.id), uuid: g.uuid, name: g.name, type: g.type, description: g.description, version: g.version, icon: g.icon, namespace: g.namespace,
      enabled: g.enabled, local_only: g.localOnly, kill_chain_order: g.killChainOrder, default: g.default, org_id: "0", orgc_id: "0", distribution: "3", created: seconds(g.createdAt), modified: seconds(g.updatedAt),
    },
  };
}

const MispTagIndexSchema = named("MispTagIndex", z.object({ Tag: z.array(MispTagSchema) }), "Every tag, as MISP's tags/index");
const MispTagBodySchema = named("MispTagBody", z.object({ Tag: MispTagSchema }), "One tag, as MISP answers tags/add");

export const mispTagRoutes = [
  defineMispRoute({
    method: "GET", path: "/misp/tags/index", operationId: "mispTagIndex",
    summary: "MISP tags/index: every tag by name (/searchall:<text> keeps those whose name holds the text), each with the enabled taxonomy its namespace names (Taxonomy, with the tag's expanded form; taxonomies:read) as MISP adds it, and, unless /exclude_statistics:1, count and attribute_count as tags/view counts them",
    scopes: ["tags:read"], status: 200, response: MispTagIndexSchema, query: namedParams({ searchall: z.string().max(255).optional(), exclude_statistics: mispBool.optional() }),
    misp: { notFound: "Invalid tag" },
    handler: async ({ principal, query, services }) => {
      const filter = query.searchall?.replace(/^%+|%+$/g, "") || undefined;
      const tags: TagRecord[] = [];
      for (let page = 1; tags.length < MAX_INDEX_TAGS; page++) {
        const batch = await services.tags.list(principal, { page, size: PAGE, ...(filter ? { filter } : {}) });
        tags.push(...batch.items);
        if (page >= batch.pages) break;
      }
      // The taxonomy is extra context, one lookup for the whole answer: a caller without taxonomies:read still gets the tags.
      const taxonomyOf = hasScope(principal!, "taxonomies:read") ? await services.taxonomies.enabledTaxonomiesOfTags(principal, { names: tags.map((t) => t.name) }) : new Map<string, TagIndexTaxonomy>();
      // MISP's statistics of the whole answer in one statement, of what the caller may read.
      const usage = query.exclude_statistics ? null : await services.tags.usage(principal, { ids: tags.map((t) => t.id) });
      return {
        Tag: tags.map((t) => {
          const x = taxonomyOf.get(t.name);
          const used = usage?.get(t.id);
          return { ...mispTag(t), ...(x ? { Taxonomy: { ...x, id: String(x.id), version: String(x.version) } } : {}), ...(used ? { count: used.events, attribute_count: used.attributes } : {}) };
        }),
      };
    },
  }),
  defineMispRoute({
    method: "POST", path: "/misp/tags/search", operationId: "mispSearchTags",
    summary: `MISP tags/search: tags whose name matches (tag or tagname: a name or a list, % and _ as in SQL LIKE, case-insensitive; strict_tagname: exact names or ids; without it, with galaxies:read, also the tag of a galaxy cluster whose value equals the string or one of whose synonyms matches it), each as {Tag, Taxonomy, TaxonomyPredicate, GalaxyCluster} with its taxonomy (taxonomies:read) and galaxy cluster with its Galaxy (galaxies:read) where one is known; at most ${MAX_SEARCH_TAGS}`,
    scopes: ["tags:read"], status: 200, body: z.unknown(),
    response: named(
      "MispTagSearch",
      z.array(z.object({ Tag: MispTagSchema, Taxonomy: z.record(z.string(), z.unknown()).optional(), TaxonomyPredicate: z.record(z.string(), z.unknown()).optional(), GalaxyCluster: z.record(z.string(), z.unknown()).optional() })),
      "Tags found, each with its taxonomy and predicate, and its galaxy cluster, where known",
    ),
    misp: { notFound: "Invalid tag" },
    handler: async ({ principal, body, services }) => {
      const given = body && typeof body === "object" && !Array.isArray(body) && "Tag" in body ? (body as { Tag: unknown }).Tag : body;
      const oneOrMany = z.union([z.string().max(255), z.array(z.string().max(255)).max(100)]);
      const q = parseInput(z.object({ tag: oneOrMany.optional(), tagname: oneOrMany.optional(), strict_tagname: mispBool.optional() }).loose(), given ?? {});
      const wanted = [q.tag ?? q.tagname ?? []].flat().filter((t) => t !== "");
      if (wanted.length === 0) throw mispException(405, "Invalid tag");
      const found = new Map<number, TagRecord>();
      const add = (tags: readonly TagRecord[]) => {
        for (const t of tags) if (found.size < MAX_SEARCH_TAGS) found.set(t.id, t);
      };
      if (q.strict_tagname) {
        // Exact names or numeric ids, as MISP's strict_tagname.
        const ids = wanted.filter((w) => /^\d+$/.test(w));
        for (const w of ids) {
          const byId = await services.tags.get(principal, Number(w)).catch((err: unknown) => (err instanceof AppError && err.code === "not_found" ? null : Promise.reject(err)));
          if (byId) add([byId]);
        }
        add(await services.tags.findByNames(principal, { names: wanted.filter((w) => !/^\d+$/.test(w)), limit: MAX_SEARCH_TAGS }));
      } else {
        add(await services.tags.findMatching(principal, { patterns: wanted, limit: MAX_SEARCH_TAGS }));
        // MISP also finds a cluster's tag by the cluster's value or a synonym: galaxy knowledge, so only for a caller who may read galaxies.
        if (hasScope(principal!, "galaxies:read") && found.size < MAX_SEARCH_TAGS) {
          const clusterTags = await services.galaxies.clusterTagNamesByValueOrSynonym(principal, wanted, MAX_SEARCH_TAGS);
          if (clusterTags.length) add(await services.tags.findByNames(principal, { names: clusterTags, ignoreCase: true, limit: MAX_SEARCH_TAGS }));
        }
      }
      const names = [...found.values()].map((t) => t.name);
      // The cluster and the taxonomy are extra context: a caller who may read tags but not galaxies or taxonomies still gets the tags.
      const clusters = hasScope(principal!, "galaxies:read") ? await services.galaxies.clustersByTagNames(principal, names) : [];
      const clusterOf = new Map(clusters.map((c) => [c.tagName, c]));
      const taxonomyOf = hasScope(principal!, "taxonomies:read") ? await services.taxonomies.taxonomiesOfTags(principal, { names }) : new Map<string, TagTaxonomy>();
      const out = [];
      for (const t of found.values()) {
        const cluster = clusterOf.get(t.name);
        const taxonomy = taxonomyOf.get(t.name);
        out.push({ Tag: mispTag(t), ...(taxonomy ? mispTaxonomy(taxonomy) : {}), ...(cluster ? { GalaxyCluster: mispCluster(cluster, t.id) } : {}) });
      }
      return out;
    },
  }),
  defineMispRoute({
    method: "GET", path: "/misp/tags/view/{tag_id}", operationId: "mispViewTag",
    summary: "MISP tags/view: one tag by its numeric id, with count (the live events carrying it that the caller may read; 0 without events:read) and attribute_count (the live attributes carrying it themselves, in live objects and events, that the caller may read; 0 without attributes:read), as MISP counts them",
    scopes: ["tags:read"], params: tagId, status: 200, response: MispTagSchema,
    misp: { notFound: "Invalid Tag" },
    handler: async ({ principal, params, services }) => {
      // MISP answers an unknown tag here with 405, not 404.
      const t = await services.tags.get(principal, params.tag_id).catch((err: unknown) => {
        throw err instanceof AppError && err.code === "not_found" ? mispException(405, "Invalid Tag") : err;
      });
      // MISP counts what the caller may read: events carrying the tag, and attributes carrying it themselves.
      const used = (await services.tags.usage(principal, { ids: [t.id] })).get(t.id)!;
      return { ...mispTag(t), count: used.events, attribute_count: used.attributes };
    },
  }),
  defineMispRoute({
    method: "POST", path: "/misp/tags/edit/{tag_id}", operationId: "mispEditTag", summary: "MISP tags/edit: change a tag's name, colour, exportable, hide_tag, local_only or numerical_value (the tag catalogue is shared: tags:admin)",
    scopes: ["tags:update"], params: tagId, status: 200, response: MispTagBodySchema, body: z.unknown(),
    misp: { notFound: "Invalid tag", saveFailed: "edit Tag" },
    handler: async ({ principal, params, body, services }) => {
      const given = body && typeof body === "object" && "Tag" in body ? (body as { Tag: unknown }).Tag : body;
      // PyMISP sends the whole tag back: the fields that are the stored ones are no change.
      const fields = tagFields(parseInput(tagEditFields, given ?? {}));
      const current = await services.tags.get(principal, params.tag_id);
      const changed = Object.fromEntries(Object.entries(fields).filter(([k, v]) => current[k as keyof typeof fields] !== v));
      const t = Object.keys(changed).length ? await services.tags.update(principal, params.tag_id, changed) : current;
      return { Tag: mispTag(t) };
    },
  }),
  defineMispRoute({
    method: "POST", path: "/misp/tags/delete/{tag_id}", operationId: "mispDeleteTag", summary: "MISP tags/delete: delete a tag and its links to events and attributes (tags:admin)",
    scopes: ["tags:delete"], params: tagId, status: 200, response: named("MispTagDeleted", z.object({ name: z.string(), message: z.string(), url: z.string() })),
    misp: { notFound: "Invalid tag" },
    handler: async ({ principal, params, services }) => {
      await services.tags.delete(principal, params.tag_id);
      return { name: "Tag deleted.", message: "Tag deleted.", url: `/tags/delete/${params.tag_id}` };
    },
  }),
  defineMispRoute({
    method: "POST", path: "/misp/tags/add", operationId: "mispAddTag", summary: "MISP tags/add: create a tag (name, colour, exportable, hide_tag, local_only, numerical_value)",
    scopes: ["tags:create"], status: 200, response: MispTagBodySchema, body: z.unknown(),
    misp: { notFound: "Invalid tag", saveFailed: "add Tag" },
    handler: async ({ principal, body, services }) => {
      const given = body && typeof body === "object" && "Tag" in body ? (body as { Tag: unknown }).Tag : body;
      const t = parseInput(
        z
          .object({
            name: z.string(),
            colour: z.string().optional(),
            exportable: mispBool.optional(),
            hide_tag: mispBool.optional(),
            local_only: mispBool.optional(),
            numerical_value: z.union([z.number().int(), z.string().regex(/^-?\d{1,10}$/).transform(Number)]).nullable().optional(),
          })
          .loose(),
        given ?? {},
      );
      const created = await services.tags.create(principal, {
        name: t.name,
        ...(t.colour ? { colour: t.colour } : {}),
        ...(t.exportable !== undefined ? { exportable: t.exportable } : {}),
        ...(t.hide_tag !== undefined ? { hideTag: t.hide_tag } : {}),
        ...(t.local_only !== undefined ? { localOnly: t.local_only } : {}),
        ...(t.numerical_value !== undefined ? { numericalValue: t.numerical_value } : {}),
      });
      return { Tag: mispTag(created) };
    },
  }),
  defineMispRoute({
    method: "POST", path: "/misp/tags/attachTagToObject", operationId: "mispAttachTag", summary: "MISP tags/attachTagToObject: tag an event or attribute ({uuid, tag (name, id or list), local}); the tag is created when missing",
    // The scope is the target's (events:tag or attributes:tag): the services check it.
    scopes: [], status: 200, response: MispSavedSchema, body: z.unknown(),
    misp: { notFound: "Invalid Target.", forbidden: CANNOT_ALTER, saveFailed: "attachTagToObject Tag" },
    handler: async ({ principal, body, services }) => {
      const req = tagRequest(body);
      let target = await findTarget(services, principal, req.uuid);
      const fails: string[] = [];
      const messages: string[] = [];
      let successes = 0;
      for (const ref of req.tags) {
        const name = await tagNameOf(services, principal, ref);
        if (name === null) {
          fails.push("Invalid Tag.");
          continue;
        }
        if (carried(target, name)) {
          messages.push(`${target.kind} already has the requested tag attached, no changes had to be made for tag ${name}.`);
          successes++;
          continue;
        }
        try {
          await tagTarget(services, principal, target, name, req.local);
        } catch (err) {
          if (!(err instanceof AppError) || err.code !== "validation_error") throw err;
          fails.push(typeof err.detail === "string" ? err.detail : err.detail.map((d) => d.msg).join("; "));
          continue;
        }
        target = await reload(services, principal, target);
        const tag = carried(target, name)!;
        messages.push(`${req.local ? "Local" : "Global"} tag ${tag.name}(${tag.id}) successfully attached to ${target.kind}(${target.id}).`);
        successes++;
      }
      const failed = fails.length ? `Failed to attach ${fails.length} tags. Reasons: ${JSON.stringify({ ...fails })}` : "";
      if (successes === 0) throw mispSaveFailed("attachTagToObject Tag", failed);
      const message = (successes > 1 ? `Successfully attached ${successes} tags to ${target.kind} (${target.id})` : messages[0]) + (failed ? `\n${failed}` : "");
      return mispSaved(message, "/tags/attachTagToObject");
    },
  }),
  defineMispRoute({
    method: "POST", path: "/misp/tags/removeTagFromObject", operationId: "mispRemoveTag", summary: "MISP tags/removeTagFromObject: remove a tag ({uuid, tag: name or id}) from an event or attribute",
    scopes: [], status: 200, response: MispSavedSchema, body: z.unknown(),
    misp: { notFound: "Invalid Target.", forbidden: CANNOT_ALTER, saveFailed: "removeTagFromObject Tag" },
    handler: async ({ principal, body, services }) => {
      const req = tagRequest(body);
      if (req.tags.length !== 1) throw mispException(405, "Invalid tag");
      const name = await tagNameOf(services, principal, req.tags[0]);
      const [tag] = name === null ? [] : await services.tags.findByNames(principal, { names: [name], ignoreCase: true, limit: 1 });
      if (!tag) throw mispException(405, "Invalid Tag.");
      const target = await findTarget(services, principal, req.uuid);
      const link = carried(target, tag.name);
      if (!link) throw mispException(404, `Could not remove tag as it is not attached to the target ${target.kind}`);
      await (target.kind === "Event" ? services.events.untag(principal, target.uuid, tag.name) : services.attributes.untag(principal, target.uuid, tag.name));
      return mispSaved(`${link.local ? "Local" : "Global"} tag ${tag.name} (${tag.id}) successfully removed from ${target.kind}(${target.id}).`, "/tags/removeTagFromObject");
    },
  }),
];

