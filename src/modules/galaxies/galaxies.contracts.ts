import { z } from "zod";
import { containsFilter } from "../../platform/contract-fields.ts";

/**
 * The input contracts of the galaxies, in the service's vocabulary: the service checks every
 * caller's input with them (REST derives its body and query strings, GraphQL its arguments).
 */
export const P2_MAX_SIZE = 1000;
export const P2_DEFAULT_SIZE = 20;

/** The peer's P2 paging (tags, taxonomies, galaxies): `page` from 1, `size` 1 to 1000 (default 20). */
export const p2PageFields = {
  page: z.number().int().min(1).default(1).describe("Page number, from 1"),
  size: z.number().int().min(1).max(P2_MAX_SIZE).default(P2_DEFAULT_SIZE).describe(`Items per page, 1 to ${P2_MAX_SIZE} (default ${P2_DEFAULT_SIZE})`),
};


export const galaxyListContract = z
  .object({ ...p2PageFields, filter: containsFilter("name or type"), enabled: z.boolean().optional().describe("Only enabled (true) or disabled (false) galaxies; omitted: both") })
  .strict();

export const clusterListContract = z.object({ ...p2PageFields, filter: containsFilter("value, tag name or external id") }).strict();

export const attackPatternQueryContract = z.object({ filter: containsFilter("name or code") }).strict();

/** `PATCH /galaxies/{id}` and GraphQL setGalaxyEnabled. */
export const galaxyFlagsContract = z
  .object({
    enabled: z.boolean().describe("True enables the galaxy (one tag per cluster), false disables it (its tags are hidden)"),
    localOnly: z.boolean().optional().describe("Its tags are never shared beyond this instance; omitted: unchanged"),
    default: z.boolean().optional().describe("A default galaxy; omitted: unchanged"),
  })
  .strict();

export type GalaxyListQuery = z.output<typeof galaxyListContract>;
export type ClusterListQuery = z.output<typeof clusterListContract>;
export type GalaxyFlags = z.output<typeof galaxyFlagsContract>;
