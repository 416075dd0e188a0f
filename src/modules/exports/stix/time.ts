/** STIX timestamps (`YYYY-MM-DDTHH:mm:ss.sssZ`, milliseconds required on created/modified) from MISP seconds. */

/** Years 0000-9999: a later date has no STIX timestamp. */
const MAX_SECONDS = 253402300799;

/** Attributes of an event mostly share a few times: the last one formatted is kept (formatting is a hot spot of large exports). */
let lastSeconds = -1;
let lastTime = "";

/** The timestamp of MISP seconds, null for a time STIX cannot write. */
export function stixTime(seconds: number | null): string | null {
  if (seconds === null || !Number.isFinite(seconds) || seconds < 0 || seconds > MAX_SECONDS) return null;
  const whole = Math.floor(seconds);
  if (whole !== lastSeconds) {
    lastTime = new Date(whole * 1000).toISOString();
    lastSeconds = whole;
  }
  return lastTime;
}

/**
 * Objects without a time of their own (attack patterns, identities) get this one: a constant keeps
 * every export's copy the same version, where "now" would make each export a new version.
 */
export const TIMELESS = "1970-01-01T00:00:00.000Z";
