import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { Runtime } from "../runtime.ts";
import { DISTRIBUTION } from "../auth/distribution.ts";
import { AppError } from "../platform/errors.ts";
import { eventCreateContract } from "../modules/events/index.ts";
import { MAX_VALUE_LENGTH, attributeCreateContract } from "../modules/attributes/index.ts";
import { SIGHTING_TYPES, sightingContract } from "../modules/sightings/index.ts";
import { exportCreateContract, type ExportCreateInput } from "../modules/exports/index.ts";
import { eventOut } from "../../rest-shim/serializers/events.ts";
import { attributeOut } from "../../rest-shim/serializers/attributes.ts";
import { exportOut } from "../../rest-shim/serializers/exports.ts";
import { MAX_ANALYSIS_LEVEL, MAX_THREAT_LEVEL, MIN_THREAT_LEVEL } from "./levels.ts";
import { toolResult } from "./results.ts";
import { ADDS_DATA, MAX_ITEMS, oneOf, UUID, wrap, type ToolContext } from "./tool-kit.ts";

const exportShape = exportCreateContract.shape;
const sighting = sightingContract.shape;

/** The attributes contract's fields a model sets, under the tool's snake_case names, described for a model. */
const attribute = attributeCreateContract.shape;
const newAttribute = z.object({
  type: attribute.type.describe('MISP type (the attribute-types resource), e.g. "ip-dst", "domain", "sha256".'),
  value: attribute.value.describe(`The indicator, at most ${MAX_VALUE_LENGTH} characters; composite types join their halves with |.`),
  category: attribute.category.describe("Default: the type's default category."),
  to_ids: attribute.toIds.describe("For detection (IDS) use; default: the type's default."),
  comment: attribute.comment,
  distribution: attribute.distribution.describe(`${DISTRIBUTION.organisation}-${DISTRIBUTION.inherit}; default 5: the event's.`),
});

interface SightingArgs {
  value?: string;
  attribute_uuid?: string;
  type: (typeof SIGHTING_TYPES)[number];
  timestamp?: number;
  source?: string;
}

interface EventArgs {
  info: string;
  date?: string;
  threat_level?: number;
  analysis?: number;
  distribution?: number;
}

interface AttributesArgs {
  event_uuid: string;
  attributes: z.infer<typeof newAttribute>[];
}

interface ExportArgs {
  name: string;
  query: string;
  index_target: ExportCreateInput["indexTarget"];
  format: ExportCreateInput["format"];
  distribution?: number | null;
}

async function addSighting(args: SightingArgs, { services, principal }: ToolContext) {
  oneOf(args, ["value", "attribute_uuid"] as const);
  const r = await services.sightings.create(
    principal,
    [{ value: args.value, attributeUuid: args.attribute_uuid?.toLowerCase(), type: args.type, timestamp: args.timestamp, source: args.source }],
    { skipEmpty: false },
  );
  return toolResult(`${r.created} sightings recorded${r.capped ? " (capped: more attributes have this value)" : ""}.`, { created: r.created, capped: r.capped });
}

async function createEvent(args: EventArgs, { services, principal }: ToolContext) {
  const e = await services.events.create(principal, {
    info: args.info,
    date: args.date,
    threatLevel: args.threat_level,
    analysis: args.analysis,
    distribution: args.distribution,
  });
  const { attributes: _none, objects: _noObjects, ...fields } = eventOut(e);
  return toolResult(`Event ${e.uuid} created (distribution ${e.distribution}); add indicators with add_attributes.`, { event: fields });
}

/**
 * One POST /attributes/ per item, in order. A refused item (422: bad type, category or value) is
 * reported and the others go on; anything else (the event is not found or not writable, a missing
 * scope) is the same for every item, so it ends the call as an error.
 */
async function addAttributes(args: AttributesArgs, { services, principal }: ToolContext) {
  const eventUuid = args.event_uuid.toLowerCase();
  const created: ReturnType<typeof attributeOut>[] = [];
  const failed: { index: number; error: unknown }[] = [];
  for (const [index, a] of args.attributes.entries()) {
    try {
      const row = await services.attributes.create(principal, {
        eventUuid,
        type: a.type,
        value: a.value,
        category: a.category,
        toIds: a.to_ids,
        comment: a.comment,
        distribution: a.distribution,
      });
      created.push(attributeOut(row));
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== "validation_error") throw err;
      failed.push({ index, error: err.toBody() });
    }
  }
  return toolResult(`Created ${created.length} of ${args.attributes.length} attributes in event ${eventUuid}${failed.length ? `; ${failed.length} refused (see failed)` : ""}.`, {
    event_uuid: eventUuid,
    created,
    failed,
  });
}

async function startExport(args: ExportArgs, { services, principal }: ToolContext) {
  const e = await services.exports.create(principal, { name: args.name, query: args.query, indexTarget: args.index_target, format: args.format, distribution: args.distribution });
  return toolResult(`Export ${e.id} ${e.status}: its file (${e.format}) is written in the background; GET /exports/${e.id} shows its status, /exports/${e.id}/download the file.`, {
    export: exportOut(e),
  });
}

/** The write tools: each says in its description that it changes data, and needs its write scope in the credential itself. */
export function registerWriteTools(server: McpServer, runtime: Runtime): void {
  server.registerTool(
    "add_sighting",
    {
      title: "Record a sighting",
      description:
        "CHANGES DATA: records that your organisation saw an indicator. Give `value` (one sighting on every attribute you may read whose value is " +
        "exactly this) or `attribute_uuid`. Type sighting (default), false-positive or expiration. Needs the sightings:create scope in your " +
        "credential itself. Returns how many sightings were stored.",
      inputSchema: {
        // The sightings contract's fields, described for a model (the service checks them again, with the rest of its rules).
        value: sighting.value.describe(`The indicator seen, at most ${MAX_VALUE_LENGTH} characters.`),
        attribute_uuid: UUID.optional().describe("The attribute seen, instead of a value."),
        type: z.enum(SIGHTING_TYPES).default("sighting"),
        timestamp: sighting.timestamp.describe("When it was seen, epoch seconds; default now."),
        source: sighting.source.describe("Where it was seen, e.g. a sensor's name."),
      },
      annotations: ADDS_DATA,
    },
    wrap(runtime, "add_sighting", addSighting),
  );

  server.registerTool(
    "create_event",
    {
      title: "Create an event",
      description:
        "CHANGES DATA: creates an event of your organisation (unpublished; distribution 0, your organisation only, unless given). " +
        `threat_level ${MIN_THREAT_LEVEL}-${MAX_THREAT_LEVEL} and analysis 0-${MAX_ANALYSIS_LEVEL} as in the threat-levels and analysis-levels resources. ` +
        "Needs the events:create scope in your credential itself. Returns the event; add indicators with add_attributes.",
      inputSchema: {
        // The event contract's fields, described for a model.
        info: eventCreateContract.shape.info.describe("The event's title, e.g. \"Phishing campaign against finance, 2026-03\"."),
        date: eventCreateContract.shape.date.describe("YYYY-MM-DD; default today."),
        threat_level: eventCreateContract.shape.threatLevel.describe(`${MIN_THREAT_LEVEL}-${MAX_THREAT_LEVEL}; default 4 (undefined).`),
        analysis: eventCreateContract.shape.analysis.describe(`0-${MAX_ANALYSIS_LEVEL}; default 0 (initial).`),
        distribution: eventCreateContract.shape.distribution.describe("0-4, the distribution-levels resource; default 0."),
      },
      annotations: ADDS_DATA,
    },
    wrap(runtime, "create_event", createEvent),
  );

  server.registerTool(
    "add_attributes",
    {
      title: "Add attributes to an event",
      description:
        `CHANGES DATA: adds 1 to ${MAX_ITEMS} attributes (indicators) to an event you may change. Each is validated as the REST API does ` +
        "(known type, category allowed for it, value valid and normalised); refused ones are listed in failed with the reason, the others are stored. " +
        "Needs the attributes:create scope in your credential itself.",
      inputSchema: { event_uuid: UUID, attributes: z.array(newAttribute).min(1).max(MAX_ITEMS) },
      annotations: ADDS_DATA,
    },
    wrap(runtime, "add_attributes", addAttributes),
  );

  server.registerTool(
    "export",
    {
      title: "Start an export",
      description:
        "CHANGES DATA: saves an export of a Lucene query (yours, listed at /exports/) and starts it: every match you may read, written in the " +
        "background as json, csv, stix or misp (misp needs `distribution`, the exported event's). Returns the export with its status (queued); " +
        "the file is downloaded from the REST API. Needs the exports:create scope in your credential itself.",
      // The exports contract's fields, described for a model.
      inputSchema: {
        name: exportShape.name,
        query: exportShape.query.describe('Lucene query, e.g. "type:ip-dst AND tags.name:\\"tlp:green\\"".'),
        index_target: exportShape.indexTarget,
        format: exportShape.format,
        distribution: exportShape.distribution.describe("misp only (required there): the exported event's distribution, 0-4"),
      },
      annotations: ADDS_DATA,
    },
    wrap(runtime, "export", startExport),
  );
}
