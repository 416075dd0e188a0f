import { z } from "zod";
import type { Principal } from "../../src/auth/principal.ts";
import type { FeedInput, FeedPatch } from "../../src/modules/feeds/index.ts";
import { AppError, parseInput } from "../../src/platform/errors.ts";
import type { Services } from "../../src/services.ts";
import { named } from "../contract.ts";
import { mispException } from "./misp-errors.ts";
import { defineMispRoute, mispBool } from "./misp-route.ts";
import { MispSavedSchema, mispSaved } from "./misp-shapes.ts";

type Feed = Awaited<ReturnType<Services["feeds"]["get"]>>;

/** Feeds one feeds/index answers at most. */
const MAX_INDEX_FEEDS = 10_000;
const PAGE = 100;
const MESSAGES = { notFound: "Invalid feed.", forbidden: "You do not have permission to do that." };

/** MISP keeps rules and settings as JSON text, and headers as `Name: value` lines. */
const jsonText = (v: unknown) => (v === null || v === undefined ? "" : JSON.stringify(v));
const headerLines = (h: unknown) =>
  h && typeof h === "object" && !Array.isArray(h) ? Object.entries(h as Record<string, unknown>).map(([k, v]) => `${k}: ${String(v)}`).join("\n") : "";

/** A feed as MISP answers it (`{"Feed": {...}}`): our `sharing` format is MISP's `misp`; headers stay redacted. */
export function mispFeed(f: Feed) {
  return {
    Feed: {
      id: String(f.id),
      name: f.name,
      provider: f.provider,
      url: f.url,
      rules: jsonText(f.rules),
      enabled: f.enabled,
      distribution: String(f.distribution),
      sharing_group_id: "0",
      tag_id: "0",
      default: false,
      source_format: f.sourceFormat === "sharing" ? "misp" : f.sourceFormat,
      fixed_event: f.fixedEvent,
      delta_merge: false,
      event_id: "0",
      event_uuid: f.eventUuid,
      publish: f.publish,
      override_ids: f.overrideIds,
      settings: jsonText(f.settings ?? {}),
      input_source: f.inputSource,
      delete_local_file: false,
      lookup_visible: false,
      headers: headerLines(f.headers),
      caching_enabled: false,
      force_to_ids: false,
      orgc_id: String(f.orgId),
      skip_warninglisted: f.skipWarninglisted,
    },
  };
}

/** JSON given as MISP's text or as the object PyMISP loaded from it. */
const jsonish = z.union([z.string().max(1_000_000), z.record(z.string(), z.unknown()), z.null()]).transform((v, ctx) => {
  if (typeof v !== "string") return v;
  if (v.trim() === "") return null;
  try {
    const parsed: unknown = JSON.parse(v);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // reported below
  }
  ctx.addIssue({ code: "custom", message: "must be a JSON object" });
  return z.NEVER;
});

/** `Name: value` lines (MISP) or a name → value object. */
const headers = z.union([z.string().max(100_000), z.record(z.string(), z.string()), z.null()]).transform((v, ctx) => {
  if (v === null || typeof v !== "string") return v;
  const out: Record<string, string> = {};
  for (const line of v.split(/\r?\n/).filter((l) => l.trim() !== "")) {
    const colon = line.indexOf(":");
    if (colon <= 0) {
      ctx.addIssue({ code: "custom", message: "each line must be Name: value" });
      return z.NEVER;
    }
    out[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return Object.keys(out).length ? out : null;
});

const level = z.union([z.number().int(), z.string().regex(/^\d{1,10}$/).transform(Number)]);
/** A feed as MISP clients send it (`{"Feed": {...}}`); MISP's fields we have no use for (caching, lookup_visible, tag_id, ...) are ignored. */
const mispFeedInput = z
  .object({
    name: z.string().optional(),
    provider: z.string().optional(),
    url: z.string().optional(),
    source_format: z.string().optional(),
    input_source: z.string().optional(),
    enabled: mispBool.optional(),
    distribution: level.optional(),
    fixed_event: mispBool.optional(),
    event_uuid: z.string().max(64).nullable().optional(),
    publish: mispBool.optional(),
    override_ids: mispBool.optional(),
    skip_warninglisted: mispBool.optional(),
    rules: jsonish.optional(),
    settings: jsonish.optional(),
    headers: headers.optional(),
  })
  .loose();

function feedFields(body: unknown): FeedPatch {
  const given = body && typeof body === "object" && !Array.isArray(body) && "Feed" in body ? (body as { Feed: unknown }).Feed : body;
  const f = parseInput(mispFeedInput, given ?? {});
  const patch: Record<string, unknown> = {
    name: f.name,
    provider: f.provider,
    url: f.url,
    sourceFormat: f.source_format,
    inputSource: f.input_source === undefined ? undefined : f.input_source.toLowerCase(),
    enabled: f.enabled,
    distribution: f.distribution,
    fixedEvent: f.fixed_event,
    eventUuid: f.event_uuid === "" ? null : f.event_uuid,
    publish: f.publish,
    overrideIds: f.override_ids,
    skipWarninglisted: f.skip_warninglisted,
    rules: f.rules,
    settings: f.settings,
    headers: f.headers,
  };
  // The service's contract judges the values; only what was given is a change.
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as FeedPatch;
}

const feedId = z.object({ feed_id: z.string().regex(/^\d{1,10}$/).transform(Number).refine((n) => n >= 1 && n <= 2_147_483_647) }).strict();
const MispFeedSchema = named("MispFeed", z.object({ Feed: z.object({ id: z.string(), name: z.string(), url: z.string(), source_format: z.string(), enabled: z.boolean(), settings: z.string() }).loose() }), "A feed as MISP answers it");
const MispResultSchema = named("MispFeedResult", z.object({ result: z.string() }), "What MISP says of a fetch it was asked for");
/** What feeds/cacheFeeds answers: MISP caches feed values for its overlap views, which feeds imported into events make moot here. */
const NO_CACHE = "Feed caching is not available: feeds are imported into events here, so their values are already searched (restSearch) and correlated; fetch a feed with feeds/fetchFromFeed or feeds/fetchFromAllFeeds.";
const MispToggleSchema = named("MispFeedToggled", z.object({ name: z.string(), message: z.string(), url: z.string() }), "MISP's answer to feeds/enable and feeds/disable");

async function allFeeds(services: Services, p: Principal | null) {
  const out: Feed[] = [];
  for (let skip = 0; out.length < MAX_INDEX_FEEDS; skip += PAGE) {
    const batch = await services.feeds.list(p, { skip, limit: PAGE });
    out.push(...batch);
    if (batch.length < PAGE) break;
  }
  return out;
}

export const mispFeedRoutes = [
  defineMispRoute({
    method: "GET", path: "/misp/feeds/index", operationId: "mispFeedIndex", summary: `MISP feeds/index: the feeds of the caller's organisation, each as {"Feed": {...}} (headers redacted); at most ${MAX_INDEX_FEEDS}`,
    scopes: ["feeds:read"], status: 200, response: named("MispFeedIndex", z.array(MispFeedSchema), "Feeds as MISP lists them"), misp: MESSAGES,
    handler: async ({ principal, services }) => (await allFeeds(services, principal)).map(mispFeed),
  }),
  defineMispRoute({
    method: "GET", path: "/misp/feeds/view/{feed_id}", operationId: "mispViewFeed", summary: "MISP feeds/view: one feed of the caller's organisation (headers redacted)",
    scopes: ["feeds:read"], params: feedId, status: 200, response: MispFeedSchema, misp: MESSAGES,
    handler: async ({ principal, params, services }) => mispFeed(await services.feeds.get(principal, params.feed_id)),
  }),
  defineMispRoute({
    method: "POST", path: "/misp/feeds/add", operationId: "mispAddFeed",
    summary: "MISP feeds/add: a feed from MISP's fields (name, provider, url, source_format misp/freetext/csv/json, input_source network, enabled, distribution, publish, override_ids, rules, settings, headers as Name: value lines); input_source local needs an upload of the REST API",
    scopes: ["feeds:create"], status: 200, response: MispFeedSchema, body: z.unknown(), misp: { ...MESSAGES, saveFailed: "add Feed" },
    handler: async ({ principal, body, services }) => {
      const fields = feedFields(body);
      // MISP's defaults for what it does not require.
      const input = { provider: fields.name, sourceFormat: "freetext", inputSource: "network", ...fields } as FeedInput;
      const { feed } = await services.feeds.create(principal, input);
      return mispFeed(feed);
    },
  }),
  defineMispRoute({
    method: "POST", path: "/misp/feeds/edit/{feed_id}", operationId: "mispEditFeed", summary: "MISP feeds/edit: change the fields given (PyMISP's enable_feed and disable_feed send {\"Feed\": {\"enabled\": ...}})",
    scopes: ["feeds:update"], params: feedId, status: 200, response: MispFeedSchema, body: z.unknown(), misp: { ...MESSAGES, saveFailed: "edit Feed" },
    handler: async ({ principal, params, body, services }) => {
      const fields = feedFields(body);
      if (Object.keys(fields).length === 0) return mispFeed(await services.feeds.get(principal, params.feed_id));
      return mispFeed(await services.feeds.update(principal, params.feed_id, fields));
    },
  }),
  ...([true, false] as const).map((enabled) =>
    defineMispRoute({
      method: "POST", path: `/misp/feeds/${enabled ? "enable" : "disable"}/{feed_id}`, operationId: enabled ? "mispEnableFeed" : "mispDisableFeed",
      summary: `MISP feeds/${enabled ? "enable" : "disable"}: ${enabled ? "enable" : "disable"} a feed`,
      scopes: ["feeds:update"], params: feedId, status: 200, response: MispToggleSchema, body: z.unknown(),
      // MISP answers an unknown feed here with 405.
      misp: { notFound: "Invalid Feed.", forbidden: MESSAGES.forbidden },
      handler: async ({ principal, params, services, request }) => {
        await services.feeds.update(principal, params.feed_id, { enabled }).catch((err: unknown) => {
          throw err instanceof AppError && err.code === "not_found" ? mispException(405, "Invalid Feed.") : err;
        });
        const message = `Feed ${enabled ? "enable" : "disable"}d.`;
        return { name: message, message, url: request.url.split("?")[0] };
      },
    }),
  ),
  defineMispRoute({
    method: "GET", path: "/misp/feeds/fetchFromFeed/{feed_id}", operationId: "mispFetchFromFeed",
    summary: "MISP feeds/fetchFromFeed: queue a fetch of an enabled feed as a task run (MISP's \"Pull queued for background execution.\"); a disabled feed is MISP's answer saying so",
    scopes: ["feeds:fetch"], params: feedId, status: 200, response: MispResultSchema, misp: MESSAGES,
    handler: async ({ principal, params, services }) => {
      const feed = await services.feeds.get(principal, params.feed_id);
      if (!feed.enabled) return { result: "Feed is currently not enabled. Make sure you enable it." };
      await services.feeds.fetch(principal, feed.id);
      return { result: "Pull queued for background execution." };
    },
  }),
  defineMispRoute({
    method: "GET", path: "/misp/feeds/fetchFromAllFeeds", operationId: "mispFetchFromAllFeeds",
    summary: "MISP feeds/fetchFromAllFeeds: queue a fetch of every enabled feed of the caller's organisation, each a task run (MISP's \"Pull queued for background execution.\", or \"No feed enabled.\")",
    scopes: ["feeds:fetch"], status: 200, response: MispResultSchema, misp: MESSAGES,
    handler: async ({ principal, services }) => {
      const enabled = (await allFeeds(services, principal)).filter((f) => f.enabled);
      for (const feed of enabled) await services.feeds.fetch(principal, feed.id);
      return { result: enabled.length ? "Pull queued for background execution." : "No feed enabled." };
    },
  }),
  defineMispRoute({
    method: "GET", path: "/misp/feeds/cacheFeeds/{scope}", operationId: "mispCacheFeeds",
    summary: `MISP feeds/cacheFeeds/{all|freetext|misp|id} (PyMISP's cache_all_feeds, cache_feed, ...): MISP's 405 saying "${NO_CACHE}"`,
    scopes: ["feeds:fetch"], params: z.object({ scope: z.string().regex(/^(all|freetext|misp|csv|\d{1,10})$/) }).strict(), status: 200, response: MispResultSchema,
    misp: { notFound: "Invalid feed.", forbidden: MESSAGES.forbidden },
    handler: () => {
      throw mispException(405, NO_CACHE);
    },
  }),
  defineMispRoute({
    method: "POST", path: "/misp/feeds/delete/{feed_id}", operationId: "mispDeleteFeed",
    summary: "MISP feeds/delete (PyMISP's delete_feed): delete a feed of the caller's organisation with its schedules (its events stay)",
    scopes: ["feeds:delete"], params: feedId, status: 200, response: MispSavedSchema,
    misp: { notFound: "Invalid Feed.", forbidden: MESSAGES.forbidden },
    handler: async ({ principal, params, services }) => {
      await services.feeds.delete(principal, params.feed_id);
      return mispSaved("Feed deleted.", `/feeds/delete/${params.feed_id}`, String(params.feed_id));
    },
  }),
];

