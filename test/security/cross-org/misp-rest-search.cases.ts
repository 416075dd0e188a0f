import type { CaseContext } from "./expectations.ts";
import type { RestCase } from "./rest.ts";

/**
 * MISP's events/restSearch and attributes/restSearch, by body (POST) and by PyMISP's `/key:value`
 * path segments (GET): B's callers aim each at A's private event in a different way (by body: its
 * attribute's value in capitals as a LIKE pattern, its numeric id, its uuid; by path: its
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
async function filtersFor(ctx: CaseContext): Promise<Filters> {
  const { w } = ctx;
  switch (ctx.actor) {
    case "bUser":
      return { eventid: await eventId(ctx), returnFormat: "json" };
    case "bRead":
      return { uuid: w.a.privateEvent.uuid, returnFormat: "csv" };
    case "bKey":
      return { eventid: w.a.privateEvent.uuid, returnFormat: "csv" };
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

const asPath = (f: Filters) => Object.entries(f).map(([k, v]) => `/${k}:${encodeURIComponent(v)}`).join("");

export const mispRestSearchRest: RestCase[] = (["events", "attributes"] as const).flatMap((controller) => [
  {
    route: `POST /misp/${controller}/restSearch`,
    request: async (ctx: CaseContext) => ({ path: `/misp/${controller}/restSearch`, json: await filtersFor(ctx) }),
    b: "filtered" as const, validator: { status: 200 },
    validatorFinds: (w) => [controller === "events" ? w.a.privateEvent.uuid : w.a.privateAttribute.uuid],
  } satisfies RestCase,
  {
    route: `GET /misp/${controller}/restSearch`,
    request: (ctx: CaseContext) => ({ path: `/misp/${controller}/restSearch${asPath(pathFiltersFor(ctx))}` }),
    b: "filtered" as const, validator: { status: 200 },
    validatorFinds: (w) => [controller === "events" ? w.a.privateEvent.uuid : w.a.privateAttribute.uuid],
  } satisfies RestCase,
]);
