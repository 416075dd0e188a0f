/**
 * Dates as OpenSearch's `date` type with format `strict_date_optional_time||epoch_millis`, and
 * date math (`now-7d`, `now/d`, `2024-01-01||+1M/d`), as epoch milliseconds (UTC).
 *
 * `roundUp` reproduces OpenSearch's range semantics (DateFieldType.rangeQuery): an inclusive upper
 * bound and an exclusive lower bound are parsed "rounding up", i.e. missing time components and
 * `/unit` roundings go to the LAST millisecond of the period (`lte 2024-01-31` includes that whole
 * day; `gt 2024-01-01` starts on 2024-01-02); the other bounds round down. A term on a date field
 * is the range [value TO value].
 */

const ISO =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Parses one date (no math); null when it is not a date OpenSearch would accept. */
export function parseDate(text: string, roundUp = false): number | null {
  const t = text.trim();
  if (/^-?\d+$/.test(t) && !/^\d{4}$/.test(t)) {
    // epoch_millis (a 4-digit number is a year for strict_date_optional_time, tried first)
    const n = Number(t);
    return Number.isSafeInteger(n) ? n : null;
  }
  const m = ISO.exec(t);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  if (zone && h === undefined) return null;
  const year = Number(y);
  const month = mo === undefined ? (roundUp ? 12 : 1) : Number(mo);
  const day = d === undefined ? (roundUp ? daysInMonth(year, month) : 1) : Number(d);
  const hour = h === undefined ? (roundUp ? 23 : 0) : Number(h);
  const minute = mi === undefined ? (roundUp ? 59 : 0) : Number(mi);
  const second = s === undefined ? (roundUp ? 59 : 0) : Number(s);
  const ms = frac === undefined ? (roundUp ? 999 : 0) : Number(frac.slice(0, 3).padEnd(3, "0"));
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) return null;
  let offsetMin = 0;
  if (zone && zone !== "Z") {
    const sign = zone[0] === "-" ? -1 : 1;
    const digits = zone.slice(1).replace(":", "");
    offsetMin = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || "0"));
  }
  return Date.UTC(year, month - 1, day, hour, minute, second, ms) - offsetMin * 60_000;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

const UNIT_MS: Record<string, number> = { w: 7 * 86_400_000, d: 86_400_000, h: 3_600_000, H: 3_600_000, m: 60_000, s: 1000 };

function addUnit(t: number, n: number, unit: string): number {
  if (unit === "y" || unit === "M") {
    const d = new Date(t);
    const months = unit === "y" ? 12 * n : n;
    const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()));
    const day = Math.min(d.getUTCDate(), daysInMonth(target.getUTCFullYear(), target.getUTCMonth() + 1));
    target.setUTCDate(day);
    return target.getTime();
  }
  return t + n * UNIT_MS[unit]!;
}

function roundTo(t: number, unit: string, up: boolean): number {
  const d = new Date(t);
  let start: number;
  switch (unit) {
    case "y":
      start = Date.UTC(d.getUTCFullYear(), 0, 1);
      break;
    case "M":
      start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
      break;
    case "w": {
      const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
      start = day - ((d.getUTCDay() + 6) % 7) * 86_400_000; // ISO weeks start on Monday
      break;
    }
    default:
      start = t - (((t % UNIT_MS[unit]!) + UNIT_MS[unit]!) % UNIT_MS[unit]!);
  }
  return up ? addUnit(start, 1, unit) - 1 : start;
}

/** Date math: `now`, a date, or `<date>||`, followed by `+N<unit>`, `-N<unit>`, `/<unit>`. */
export function parseDateMath(text: string, roundUp: boolean, now: number): number | null {
  let base: number | null;
  let math: string;
  if (text.startsWith("now")) {
    base = now;
    math = text.slice(3);
  } else {
    const sep = text.indexOf("||");
    if (sep === -1) return parseDate(text, roundUp);
    base = parseDate(text.slice(0, sep), roundUp);
    math = text.slice(sep + 2);
  }
  if (base === null) return null;
  let t = base;
  const re = /([+-])(\d+)?([yMwdhHms])|\/([yMwdhHms])/gy;
  let pos = 0;
  while (pos < math.length) {
    re.lastIndex = pos;
    const m = re.exec(math);
    if (!m) return null;
    pos = re.lastIndex;
    if (m[4]) t = roundTo(t, m[4], roundUp);
    else t = addUnit(t, (m[1] === "-" ? -1 : 1) * Number(m[2] ?? "1"), m[3]!);
  }
  return Number.isFinite(t) ? t : null;
}
