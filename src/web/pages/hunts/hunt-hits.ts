/** How a search document hit reads in the results: what it is, what it says, which event it is in. */
export interface DocumentSummary {
  kind: "event" | "attribute" | "correlation";
  title: string;
  detail: string;
  eventUuid: string | null;
}

type Doc = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

export function describeDocument(document: unknown, docKind: string | null | undefined, uuid: string | null | undefined): DocumentSummary {
  const d: Doc = document && typeof document === "object" ? (document as Doc) : {};
  const kind = docKind === "event" || docKind === "attribute" ? docKind : str(d.source_event_uuid) ? "correlation" : str(d.info) !== null ? "event" : "attribute";
  if (kind === "event") {
    return { kind, title: str(d.info) ?? uuid ?? "Event", detail: [str(d.org_name) ?? str(d.orgc_name), str(d.date)].filter(Boolean).join(" · "), eventUuid: uuid ?? str(d.uuid) };
  }
  if (kind === "correlation") {
    const value = str(d.value) ?? str(d.source_value) ?? "";
    return { kind, title: value || "Correlation", detail: `${str(d.source_event_uuid)} ↔ ${str(d.target_event_uuid) ?? "?"}`, eventUuid: str(d.source_event_uuid) };
  }
  return {
    kind,
    title: str(d.value) ?? uuid ?? "Attribute",
    detail: [str(d.type), str(d.category)].filter(Boolean).join(" · "),
    eventUuid: str(d.event_uuid),
  };
}
