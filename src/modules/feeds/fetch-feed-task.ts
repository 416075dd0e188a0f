import { errors } from "../../platform/errors.ts";
import type { RegisteredTask } from "../tasks/index.ts";
import { canFetchFeed, FETCH_SCOPES, ingestingPrincipal } from "./feeds.policy.ts";
import { FeedContentError, ingestFeed } from "./ingest/ingest.ts";

/**
 * Task `fetch_feed` (kwargs `feed_id`): ingests the feed as the run's user, for the feed's
 * organisation. Only a feed the user may fetch can be scheduled, and each run checks again as the
 * user is now (moved to another organisation, say). Problems with the content as a whole (no
 * manifest, malformed JSON, a missing file) fail the run with the reason; problems with single rows
 * or events are counted and listed in the result.
 */
export const fetchFeedTask: RegisteredTask = {
  name: "fetch_feed",
  description: "Fetch a feed and ingest its events or indicators (kwargs: feed_id).",
  requiredScopes: FETCH_SCOPES,
  maxAttempts: 3,
  checkParams(args, kwargs, where) {
    if (args.length > 0) throw errors.invalidField([...where, "args"], "this task takes keyword arguments only", args);
    const extra = Object.keys(kwargs).filter((k) => k !== "feed_id" && k !== "user_id");
    if (extra.length) throw errors.invalidField([...where, "kwargs", extra[0]], "unknown keyword argument", kwargs[extra[0]]);
    const id = kwargs.feed_id;
    if (!Number.isInteger(id) || (id as number) < 1 || (id as number) > 2_147_483_647) throw errors.invalidField([...where, "kwargs", "feed_id"], "must be a feed id", id);
  },
  async checkTarget(app, p, _args, kwargs, where) {
    const feed = await app.db.prisma.feed.findUnique({ where: { id: kwargs.feed_id as number } });
    if (!feed || !canFetchFeed(p, feed)) throw errors.invalidField([...where, "kwargs", "feed_id"], "no such feed of your organisation", kwargs.feed_id);
  },
  async execute({ app, services, principal, run, log, saveProgress }) {
    const feedId = run.kwargs.feed_id as number;
    const feed = await app.db.prisma.feed.findUnique({ where: { id: feedId } });
    if (!feed || !canFetchFeed(principal, feed)) throw errors.notFound("Feed");
    try {
      const { counts, validators, timings } = await ingestFeed({ app, events: services.events, principal: ingestingPrincipal(principal, feed), progress: (c) => saveProgress({ ...c }) }, feed);
      await app.db.pool.query(
        "UPDATE feeds SET last_fetched_at = now(), etag = COALESCE($2, etag), last_modified = COALESCE($3, last_modified) WHERE id = $1",
        [feed.id, validators?.etag ?? null, validators?.lastModified ?? null],
      );
      log.debug({ feed_id: feed.id, attributes_created: counts.attributes_created, ...timings }, "feed ingested");
      return { feed_id: feed.id, ...counts };
    } catch (err) {
      if (err instanceof FeedContentError || err instanceof SyntaxError) throw errors.badRequest(err.message);
      throw err;
    }
  },
};
