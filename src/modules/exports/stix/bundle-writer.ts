/**
 * A STIX 2.1 bundle written as a stream of string chunks from search documents fed one at a time,
 * for exports of any size (a Lucene query's million attributes) in bounded memory.
 *
 * Objects are written as soon as they are known, in this order for each document: the shared
 * objects it is the first to use (identity, markings, attack patterns), its observables, its own
 * object, its relationships. Reports come last (or, with `groupedByEvent`, when the input moves on
 * to another event), because a report lists every object of its event.
 *
 * Memory held between documents (everything else is garbage once a document's chunks are taken):
 * - shared objects' ids: one per distinct organisation, TLP level and ATT&CK technique;
 * - per event not yet reported: its document's fields (info, tags) and its report's references,
 *   packed at 17 bytes per exported attribute (`IdList`). Without `groupedByEvent` that is every
 *   event of the export, so about 17 bytes x exported attributes (+ relationships) in total; with
 *   it, one event at a time plus 36 bytes of uuid per event already reported;
 * - the last `OBSERVABLE_WINDOW` observable ids, to skip writing the same SCO twice in a row (ids are
 *   deterministic, so a repeat farther apart is an identical copy, which STIX tolerates);
 * - the organisations looked up, by numeric id.
 */
import { randomUUID } from "node:crypto";
import { ChunkBuilder } from "../../../platform/text-chunks.ts";
import type { IndexName } from "../../../search/search-index.ts";
import { mapAttribute, type IndicatorPolicy } from "./attribute-objects.ts";
import { identityOf, reportHeader } from "./event-objects.ts";
import { IdList } from "./id-list.ts";
import { readAttributeSource, readEventSource, type AttributeSource, type EventSource, type Organisation } from "./source-documents.ts";
import { attackPatternsOfTags, markingsOfTags } from "./tags.ts";
import type { StixBase } from "./types.ts";

/** A search hit as the scan gives it: documents of other indices are skipped. */
export interface StixInput {
  index: IndexName;
  source: Record<string, unknown>;
}

export interface StixExportOptions {
  /** Default: a random one (each export is a new bundle; what it holds keeps stable ids). */
  bundleId?: string;
  /** `to_ids` (default): only attributes for detection become indicators. */
  indicators?: IndicatorPolicy;
  /**
   * The input gives all documents of an event together (its event document first): each report is
   * written when the next event starts, holding one event's references at a time. A document of an
   * event already reported is refused (its report would be incomplete).
   */
  groupedByEvent?: boolean;
  /**
   * The event document (`_source` of svc-events) of an attribute whose event was not written
   * before it; without it, such attributes lack the event's markings and creator until the report.
   */
  loadEvent?: (eventUuid: string) => Promise<Record<string, unknown> | null>;
  /** An organisation by numeric id, for attributes whose event document gave none. */
  loadOrganisation?: (orgId: number) => Promise<Organisation | null>;
}

export interface StixWriterStats {
  documents: number;
  /** Documents skipped: unreadable, deleted, of other indices. */
  skipped: number;
  objects: number;
  /** Events whose report is not written yet, and the bytes of their packed references. */
  pendingEvents: number;
  pendingReferenceBytes: number;
  sharedObjects: number;
  recentObservables: number;
  reportedEvents: number;
}

/** Observable ids remembered to skip repeats: a constant bound, enough for a value's neighbours. */
export const OBSERVABLE_WINDOW = 4096;
/** References per chunk of a report's object_refs. */
const REFS_PER_CHUNK = 1000;

interface EventState {
  uuid: string;
  event: EventSource | null;
  createdByRef?: string;
  markings: string[];
  refs: IdList;
  attackPatterns: Set<string>;
  latest: number;
}

class RecentIds {
  private readonly ids = new Set<string>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.ids.size;
  }

  /** True when `id` was not among the recent ones (and now is). */
  add(id: string): boolean {
    if (this.ids.has(id)) return false;
    if (this.ids.size >= this.capacity) this.ids.delete(this.ids.values().next().value!);
    this.ids.add(id);
    return true;
  }
}

export class StixBundleWriter {
  readonly bundleId: string;
  private readonly options: StixExportOptions;
  private started = false;
  private ended = false;
  private objects = 0;
  private documents = 0;
  private skipped = 0;
  private readonly shared = new Set<string>();
  private readonly recent = new RecentIds(OBSERVABLE_WINDOW);
  private readonly events = new Map<string, EventState>();
  private readonly organisations = new Map<number, Organisation | null>();
  /** `groupedByEvent`: events already reported, and the one being written. */
  private readonly reported = new Set<string>();
  private current: string | null = null;

  constructor(options: StixExportOptions = {}) {
    this.options = options;
    this.bundleId = options.bundleId ?? `bundle--${randomUUID()}`;
  }

  /**
   * Writes one document's objects to `out` (nothing when it adds nothing), preceded, with
   * `groupedByEvent`, by the previous event's report when this document starts another event.
   * Documents are written one after the other; the caller takes `out`'s text when it is full.
   */
  async write(input: StixInput, out: ChunkBuilder): Promise<void> {
    if (this.ended) throw new Error("the bundle is already ended");
    this.documents++;
    const doc = input.index === "svc-events" ? readEventSource(input.source) : input.index === "svc-attributes" ? readAttributeSource(input.source) : null;
    if (!doc || doc.deleted) {
      this.skipped++;
      return;
    }
    this.open(out);
    const eventUuid = "eventUuid" in doc ? doc.eventUuid : doc.uuid;
    if (this.options.groupedByEvent && this.current !== eventUuid) this.switchTo(eventUuid, out);
    if ("eventUuid" in doc) await this.writeAttribute(doc, out);
    else this.adopt(this.events.get(doc.uuid) ?? this.newState(doc.uuid), doc, out);
  }

  /** The reports not written yet and the end of the bundle, in chunks of about `CHUNK_CHARS`. */
  *end(): Generator<string> {
    if (this.ended) return;
    this.ended = true;
    const out = new ChunkBuilder();
    this.open(out);
    for (const state of this.events.values()) {
      for (const piece of this.report(state)) {
        out.push(piece);
        if (out.full) yield out.take();
      }
    }
    this.events.clear();
    out.push(this.objects ? "]}" : "}");
    yield out.take();
  }

  stats(): StixWriterStats {
    let bytes = 0;
    for (const s of this.events.values()) bytes += s.refs.bytes;
    return {
      documents: this.documents,
      skipped: this.skipped,
      objects: this.objects,
      pendingEvents: this.events.size,
      pendingReferenceBytes: bytes,
      sharedObjects: this.shared.size,
      recentObservables: this.recent.size,
      reportedEvents: this.reported.size,
    };
  }

  private open(out: ChunkBuilder): void {
    if (this.started) return;
    this.started = true;
    // "objects" is opened with the first object: a bundle without objects must not have an empty list.
    out.push(`{"type":"bundle","id":${JSON.stringify(this.bundleId)}`);
  }

  /** The separator before the next object. */
  private next(): string {
    return this.objects++ ? "," : `,"objects":[`;
  }

  private emit(o: StixBase, out: ChunkBuilder): void {
    out.push(this.next());
    out.push(JSON.stringify(o));
  }

  private emitShared(o: StixBase, out: ChunkBuilder): void {
    if (this.shared.has(o.id)) return;
    this.shared.add(o.id);
    this.emit(o, out);
  }

  private async writeAttribute(a: AttributeSource, out: ChunkBuilder): Promise<void> {
    const state = this.events.get(a.eventUuid) ?? (await this.loadState(a.eventUuid, out));
    // The attribute's organisation is its event's creator: the report's too when no event document said so.
    state.createdByRef ??= await this.creatorOf(a, out);
    const createdByRef = state.createdByRef;
    const mapped = mapAttribute(a, { createdByRef, eventMarkings: state.markings, indicators: this.options.indicators });
    for (const m of mapped.markings) this.emitShared(m, out);
    for (const p of mapped.attackPatterns) {
      this.emitShared(p, out);
      state.attackPatterns.add(p.id);
    }
    for (const o of mapped.observables) if (this.recent.add(o.id)) this.emit(o, out);
    this.emit(mapped.primary, out);
    state.refs.push(mapped.primary.id);
    for (const r of mapped.relationships) {
      this.emit(r, out);
      state.refs.push(r.id);
    }
    if (a.timestamp > state.latest) state.latest = a.timestamp;
  }

  /** `groupedByEvent`: a document of another event than the last one ends the last one's report. */
  private switchTo(eventUuid: string, out: ChunkBuilder): void {
    if (this.reported.has(eventUuid)) throw new Error(`documents of event ${eventUuid} are not together: its report is already written`);
    if (this.current !== null) {
      const previous = this.events.get(this.current);
      if (previous) for (const piece of this.report(previous)) out.push(piece);
      this.events.delete(this.current);
      this.reported.add(this.current);
    }
    this.current = eventUuid;
  }

  private newState(uuid: string): EventState {
    const state: EventState = { uuid, event: null, markings: [], refs: new IdList(), attackPatterns: new Set(), latest: 0 };
    this.events.set(uuid, state);
    return state;
  }

  private async loadState(eventUuid: string, out: ChunkBuilder): Promise<EventState> {
    const state = this.newState(eventUuid);
    const source = this.options.loadEvent ? await this.options.loadEvent(eventUuid) : null;
    const event = source ? readEventSource(source) : null;
    if (event && event.uuid === eventUuid && !event.deleted) this.adopt(state, event, out);
    return state;
  }

  /** Takes what the event document says: creator, markings, ATT&CK tags. */
  private adopt(state: EventState, event: EventSource, out: ChunkBuilder): void {
    state.event = event;
    if (event.orgc) {
      if (event.orgcId !== null) this.organisations.set(event.orgcId, event.orgc);
      const identity = identityOf(event.orgc);
      this.emitShared(identity, out);
      state.createdByRef = identity.id;
    }
    const markings = markingsOfTags(event.tags);
    for (const m of markings) this.emitShared(m, out);
    state.markings = markings.map((m) => m.id);
    for (const p of attackPatternsOfTags(event.tags)) {
      this.emitShared(p, out);
      state.attackPatterns.add(p.id);
    }
  }

  private async creatorOf(a: AttributeSource, out: ChunkBuilder): Promise<string | undefined> {
    if (a.orgcId === null) return undefined;
    let org = this.organisations.get(a.orgcId);
    if (org === undefined && this.options.loadOrganisation) {
      org = await this.options.loadOrganisation(a.orgcId);
      this.organisations.set(a.orgcId, org);
    }
    if (!org) return undefined;
    const identity = identityOf(org);
    this.emitShared(identity, out);
    return identity.id;
  }

  /** The report of an event, its object_refs streamed in chunks. Nothing when it would refer to nothing. */
  private *report(state: EventState): Generator<string> {
    const header = reportHeader(state.uuid, state.event, { createdByRef: state.createdByRef, markings: state.markings, latestAttributeTime: state.latest });
    let refs: Iterable<string> = state.refs;
    if (state.refs.length === 0 && state.attackPatterns.size === 0) {
      // object_refs may not be empty: an event with nothing exported still names its creator.
      if (!header.created_by_ref) return;
      refs = [header.created_by_ref];
    }
    const head = JSON.stringify(header);
    let chunk = `${this.next()}${head.slice(0, -1)},"object_refs":[`;
    let n = 0;
    for (const list of [refs, state.attackPatterns]) {
      for (const id of list) {
        chunk += (n ? "," : "") + JSON.stringify(id);
        if (++n % REFS_PER_CHUNK === 0) {
          yield chunk;
          chunk = "";
        }
      }
    }
    yield `${chunk}]}`;
  }
}

/** The chunks of the bundle of `inputs`. */
export async function* stixBundle(inputs: AsyncIterable<StixInput> | Iterable<StixInput>, options: StixExportOptions = {}): AsyncGenerator<string> {
  const writer = new StixBundleWriter(options);
  const out = new ChunkBuilder();
  for await (const input of inputs) {
    await writer.write(input, out);
    if (out.full) yield out.take();
  }
  if (!out.empty) yield out.take();
  yield* writer.end();
}
