/** An API timestamp in the reader's locale and time zone, machine-readable in `dateTime`; a dash when absent. */
export function Timestamp({ value, empty = "—" }: { value: string | null | undefined; empty?: string }) {
  if (!value) return <>{empty}</>;
  const date = new Date(value);
  return <time dateTime={value}>{date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })}</time>;
}
