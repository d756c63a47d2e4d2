/**
 * Durations on the client's side: what to send as `ttl`, and how long that
 * is, to schedule renewals without trusting that the client's clock agrees
 * with the server's. The forms are the app's (`30s`, `45m`, `2h`, `3d`,
 * `2w`, `2 hours`, `1.5h`); the server has the last word on what it takes.
 */
import type { Ttl } from "./types.js";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;

const UNITS: Record<string, number> = {
  s: SECOND, sec: SECOND, secs: SECOND, second: SECOND, seconds: SECOND,
  m: MINUTE, min: MINUTE, mins: MINUTE, minute: MINUTE, minutes: MINUTE,
  h: HOUR, hr: HOUR, hrs: HOUR, hour: HOUR, hours: HOUR,
  d: DAY, day: DAY, days: DAY,
  w: WEEK, wk: WEEK, wks: WEEK, week: WEEK, weeks: WEEK,
};

const PATTERN = /^(\d{1,9}(?:\.\d{1,6})?)\s{0,3}([a-z]{1,7})$/i;

/** Milliseconds of a duration, or null when the client does not read it (the server may still). */
export function ttlMs(ttl: Ttl): number | null {
  if (typeof ttl === "number") return Number.isFinite(ttl) && ttl > 0 ? ttl : null;
  const m = PATTERN.exec(ttl.trim());
  const unit = m ? UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined) return null;
  const ms = Math.round(Number(m[1]) * unit);
  return ms > 0 ? ms : null;
}

/** The `ttl` sent: a string as given, milliseconds as whole seconds, rounded up. */
export function ttlText(ttl: Ttl): string {
  if (typeof ttl === "string") return ttl;
  if (!Number.isFinite(ttl) || ttl <= 0) throw new TypeError(`not a duration: ${ttl} ms`);
  return `${Math.ceil(ttl / SECOND)}s`;
}
