/**
 * A document's `@timestamp` as epoch milliseconds, or null. Event documents carry naive UTC (the
 * peer's format), attribute and correlation documents an offset: both read as UTC.
 */
export function timestampMillis(v: unknown): number | null {
  if (typeof v !== "string") return null;
  const t = Date.parse(/(Z|[+-]\d\d:?\d\d)$/.test(v) ? v : `${v}Z`);
  return Number.isNaN(t) ? null : t;
}
