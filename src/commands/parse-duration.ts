/**
 * Durations as people type them in a comment or a config file:
 *
 *   30s  45m  2h  3d  2w          (short forms, no space needed)
 *   30 seconds  1 minute  2 hours  3 days  2 weeks   (long forms)
 *   90min  1hr  2 hrs  3 wks      (common abbreviations)
 *
 * One number and one unit; the number is a whole number or a decimal
 * (`1.5h`). Anything else, zero and negative values included, is not a
 * duration: `parseDuration` returns null and the caller says what is
 * accepted (see `DURATION_FORMS`).
 */

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

/** Shown to users whose duration did not parse. */
export const DURATION_FORMS = "`30s`, `45m`, `2h`, `3d`, `2w`, or `2 hours`, `3 days`";

// Bounded quantifiers keep this linear on any input.
const PATTERN = /^(\d{1,9}(?:\.\d{1,6})?)\s{0,3}([a-z]{1,7})$/i;

/** Milliseconds for a positive duration, or null when `text` is not one. */
export function parseDuration(text: string): number | null {
  const match = PATTERN.exec(text.trim());
  if (!match) return null;
  const unit = UNITS[match[2]!.toLowerCase()];
  if (unit === undefined) return null;
  const ms = Math.round(Number(match[1]) * unit);
  return Number.isFinite(ms) && ms > 0 ? ms : null;
}

/**
 * A duration as a config file writes it, in the largest of days, hours,
 * minutes and seconds that fits whole: `14d`, `36h`, `90m`. Days rather than
 * weeks, as `max_ttl: 14d` is written more often than `2w`; either reads back.
 */
export function shortDuration(ms: number): string {
  const units: Array<[number, string]> = [
    [DAY, "d"],
    [HOUR, "h"],
    [MINUTE, "m"],
  ];
  for (const [size, name] of units) if (ms >= size && ms % size === 0) return `${ms / size}${name}`;
  return `${Math.max(1, Math.round(ms / SECOND))}s`;
}

/** A duration in the largest whole unit that fits, for replies: "2 hours", "3 days", "90 minutes". */
export function formatDuration(ms: number): string {
  const units: Array<[number, string]> = [
    [WEEK, "week"],
    [DAY, "day"],
    [HOUR, "hour"],
    [MINUTE, "minute"],
    [SECOND, "second"],
  ];
  for (const [size, name] of units) {
    if (ms >= size && ms % size === 0) {
      const n = ms / size;
      return `${n} ${name}${n === 1 ? "" : "s"}`;
    }
  }
  const seconds = Math.max(1, Math.round(ms / SECOND));
  return `${seconds} second${seconds === 1 ? "" : "s"}`;
}
