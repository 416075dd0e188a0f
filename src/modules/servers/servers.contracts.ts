import { z } from "zod";
import { RULES_DOC as R, SERVER_DOC as D } from "./servers.docs.ts";

/**
 * The input contracts of sync server writes, previews and pushes, in the service's vocabulary (REST
 * derives its bodies, GraphQL its checks). Whether the URL is reachable is the service's.
 */
const name = z.string().trim().min(1).max(255);
const names = z.array(name).max(200);

const filter = z
  .object({ include: names.optional().describe(R.include), exclude: names.optional().describe(R.exclude) })
  .strict();

export const pullRulesContract = z
  .object({
    tags: filter.optional().describe(R.tags),
    orgs: filter.optional().describe(R.orgs),
    since: z.int().min(0).max(253_402_300_799).nullable().optional().describe(R.since),
    publishedOnly: z.boolean().optional().describe(R.publishedOnly),
  })
  .strict();

export const pushRulesContract = z
  .object({
    tags: filter.optional().describe(R.tags),
    orgs: filter.optional().describe(R.orgs),
    publishedOnly: z.boolean().optional().describe(R.publishedOnly),
    maxDistribution: z.int().min(1).max(3).optional().describe(R.maxDistribution),
  })
  .strict();

/** The URL's shape only: http(s), a host, no credentials in it (the key is its own field). */
const url = z
  .string()
  .trim()
  .max(2048)
  .refine((v) => {
    if (!URL.canParse(v)) return false;
    const u = new URL(v);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "" && u.username === "" && u.password === "";
  }, "must be an http(s) URL without credentials in it")
  .describe(`${D.url}, at most 2048 characters`);

const authkey = z
  .string()
  .min(8)
  .max(256)
  .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces")
  .describe(D.authkey);

export const serverCreateContract = z
  .object({
    name: name.describe(D.name),
    url,
    authkey,
    orgId: z.int().min(1).max(2_147_483_647).optional().describe(D.orgId),
    pullEnabled: z.boolean().optional().describe(`${D.pullEnabled} (default false)`),
    pushEnabled: z.boolean().optional().describe(`${D.pushEnabled} (default false)`),
    internal: z.boolean().optional().describe(`${D.internal} (default false)`),
    pullRules: pullRulesContract.optional().describe(D.pullRules),
    pushRules: pushRulesContract.optional().describe(D.pushRules),
  })
  .strict();

export const serverPatchContract = serverCreateContract.partial();

/** One event, by uuid, on the remote (pull) or here (push). */
export const eventUuidContract = z.guid().transform((u) => u.toLowerCase());

/** A preview: the first `limit` events of the remote's index that a pull would take. */
export const previewPullContract = z
  .object({ limit: z.int().min(1).max(1000).optional().describe("Events to list, 1 to 1000 (default 100)") })
  .strict();

export type ServerInput = z.input<typeof serverCreateContract>;
export type ServerPatch = z.input<typeof serverPatchContract>;
export type PullRules = z.output<typeof pullRulesContract>;
export type PushRules = z.output<typeof pushRulesContract>;
export type PreviewPullInput = z.input<typeof previewPullContract>;
