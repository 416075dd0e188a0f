import type { CaseContext } from "./expectations.ts";
import type { RestCase } from "./rest.ts";

/**
 * MISP's events/restSearch and attributes/restSearch, by body (POST) and by PyMISP's `/key:value`
 * path segments (GET): B's callers aim each at A's private event in a different way (by body: its
 * attribute's value in capitals as a LIKE pattern, its numeric id (on events beside A's shared
 * event, with tags NOT A's tag: the shared event answered with B's attributes only), its uuid; by path: its
 * attribute's value1, value2, comment and tag, the event's title, searchall; json and csv), and
 * must find none of it. The site administrator's request (by body the first way, by path all of
 * them at once) finds it: the empty answer to B is filtering.
 */
type Filters = Record<string, string>;

async function eventId({ w }: CaseContext): Promise<string> {
  const [row] = await w.q<{ id: string }>("SELECT id::text FROM events WHERE uuid = $1", [w.a.privateEvent.uuid]);
  return row.id;
}

/** One way to aim at A's private event per caller; the validator (site) uses the first. */
async function filtersFor(ctx: CaseContext, controller: "events" | "attributes"): Promise<Filters | Record<string, unknown>> {
  const { w } = ctx;
  switch (ctx.actor) {
    case "bUser":
      // On events with tags NOT (the attributes carrying it dropped from the answer's events): A's shared event comes with what B may read only (bCheck).
      return controller === "events" ? { eventid: [await eventId(ctx), w.a.sharedEvent.uuid], tags: { NOT: [w.a.tag.name] }, returnFormat: "json" } : { eventid: await eventId(ctx), returnFormat: "json" };
    // csv on attributes (events answer json: the row's bCheck reads every B answer as JSON; their csv is the GET row's).
    case "bRead":
      return { uuid: w.a.privateEvent.uuid, returnFormat: controller === "events" ? "json" : "csv" };
    case "bKey":
      return { eventid: w.a.privateEvent.uuid, returnFormat: controller === "events" ? "json" : "csv" };
    case "bAdmin":
      // Its value in capitals, as a LIKE pattern: the term on expanded.value, events answered by their read.
      return { value: `%${w.a.privateAttribute.value.slice(3).toUpperCase()}`, returnFormat: "json" };
    default:
      return { value: w.a.privateAttribute.value, returnFormat: "json" };
  }
}

/** By path: the filters that compare one column each (rest-search-query.ts attributeLevel, eventLevel, tags, searchall). */
function pathFiltersFor(ctx: CaseContext): Filters {
  const { privateAttribute: a, privateEvent: e, tag } = ctx.w.a;
  const ways: Record<string, Filters> = {
    bUser: { value1: a.value.toUpperCase(), value2: "%" },
    bRead: { comment: `%${a.comment.slice(2).toUpperCase()}`, returnFormat: "csv" },
    bKey: { eventinfo: e.info, tags: tag.name },
    bAdmin: { searchall: `%${a.value.slice(3).toUpperCase()}` },
  };
  return ways[ctx.actor] ?? Object.assign({}, ...Object.values(ways), { returnFormat: "json" });
}

/** B's user's events answer with tags NOT A's tag: A's shared event alone, with the attribute B may read (leaks() checks the rest). */
function sharedEventOnly(body: { response?: { Event: { uuid: string; Attribute: { uuid: string }[] } }[] }, ctx: CaseContext): string | null {
  if (ctx.actor !== "bUser") return null;
  const events = body.response ?? [];
  const found = events.map((e) => e.Event.uuid).join(",");
  if (found !== ctx.w.a.sharedEvent.uuid) return `tags NOT: expected A's shared event alone, got [${found}]`;
  return events[0]!.Event.Attribute.some((a) => a.uuid === ctx.w.a.sharedAttribute.uuid) ? null : "tags NOT: the shared event lacks the attribute B may read";
}

const asPath = (f: Filters) => Object.entries(f).map(([k, v]) => `/${k}:${encodeURIComponent(v)}`).join("");

export const mispRestSearchRest: RestCase[] = (["events", "attributes"] as const).flatMap((controller) => [
  {
    route: `POST /misp/${controller}/restSearch`,
    request: async (ctx: CaseContext) => ({ path: `/misp/${controller}/restSearch`, json: await filtersFor(ctx, controller) }),
    b: "filtered" as const, validator: { status: 200 },
    validatorFinds: (w) => [controller === "events" ? w.a.privateEvent.uuid : w.a.privateAttribute.uuid],
    ...(controller === "events" ? { bCheck: sharedEventOnly } : {}),
  } satisfies RestCase,
  {
    route: `GET /misp/${controller}/restSearch`,
    request: (ctx: CaseContext) => ({ path: `/misp/${controller}/restSearch${asPath(pathFiltersFor(ctx))}` }),
    b: "filtered" as const, validator: { status: 200 },
    validatorFinds: (w) => [controller === "events" ? w.a.privateEvent.uuid : w.a.privateAttribute.uuid],
  } satisfies RestCase,
]);
