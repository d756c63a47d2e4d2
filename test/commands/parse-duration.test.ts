import { describe, expect, it } from "vitest";
import { DURATION_FORMS, formatDuration, parseDuration } from "../../src/commands/parse-duration.js";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;

const accepted: Array<[text: string, ms: number]> = [
  ["30s", 30 * SECOND],
  ["45m", 45 * MINUTE],
  ["2h", 2 * HOUR],
  ["3d", 3 * DAY],
  ["2w", 2 * WEEK],
  ["1 second", SECOND],
  ["30 seconds", 30 * SECOND],
  ["10 sec", 10 * SECOND],
  ["10secs", 10 * SECOND],
  ["1 minute", MINUTE],
  ["90min", 90 * MINUTE],
  ["5 mins", 5 * MINUTE],
  ["1hr", HOUR],
  ["2 hrs", 2 * HOUR],
  ["1 hour", HOUR],
  ["2 hours", 2 * HOUR],
  ["1 day", DAY],
  ["3 days", 3 * DAY],
  ["1wk", WEEK],
  ["3 wks", 3 * WEEK],
  ["1 week", WEEK],
  ["2 weeks", 2 * WEEK],
  ["1.5h", 90 * MINUTE],
  ["0.5 days", 12 * HOUR],
  ["0.1s", 100],
  ["007h", 7 * HOUR],
  ["2H", 2 * HOUR],
  ["2 Hours", 2 * HOUR],
  ["3 DAYS", 3 * DAY],
  ["  2h  ", 2 * HOUR],
  ["2   h", 2 * HOUR],
  ["2\th", 2 * HOUR],
];

const rejected: string[] = [
  "",
  "   ",
  "h",
  "hours",
  "2",
  "0s",
  "0 days",
  "0.0h",
  "0.0001s", // rounds to 0 ms
  "-2h",
  "+2h",
  "2 parsecs",
  "2 ms",
  "2y",
  "2h30m",
  "2h 30m",
  "two hours",
  "2 hours please",
  "2h.",
  "2    h", // four spaces
  ".5h",
  "1.h",
  "1,5h",
  "1e3s",
  "1.1234567h", // seven decimals
  "1234567890s", // ten digits
  "Infinity h",
  "NaN h",
  "0x10h",
  "2 hourss",
  "forever",
];

describe("parseDuration", () => {
  it.each(accepted)("accepts %j", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(rejected)("rejects %j", (text) => {
    expect(parseDuration(text)).toBeNull();
  });

  it("stays fast on long input", () => {
    expect(parseDuration(`${"9".repeat(100_000)}h`)).toBeNull();
    expect(parseDuration(`1${" ".repeat(100_000)}h`)).toBeNull();
  });

  it("names the forms it accepts, and they parse", () => {
    const forms = [...DURATION_FORMS.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? "");
    expect(forms).toEqual(["30s", "45m", "2h", "3d", "2w", "2 hours", "3 days"]);
    for (const form of forms) expect(parseDuration(form)).not.toBeNull();
  });
});

describe("formatDuration", () => {
  it.each<[ms: number, text: string]>([
    [SECOND, "1 second"],
    [30 * SECOND, "30 seconds"],
    [MINUTE, "1 minute"],
    [90 * MINUTE, "90 minutes"],
    [HOUR, "1 hour"],
    [2 * HOUR, "2 hours"],
    [36 * HOUR, "36 hours"],
    [DAY, "1 day"],
    [3 * DAY, "3 days"],
    [7 * DAY, "1 week"],
    [2 * WEEK, "2 weeks"],
    [10 * DAY, "10 days"],
    [1500, "2 seconds"],
    [100, "1 second"],
  ])("formats %d ms as %j", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it("formats whole units as durations that parse back to the same value", () => {
    for (const ms of [SECOND, 45 * SECOND, MINUTE, 90 * MINUTE, HOUR, 36 * HOUR, DAY, 3 * DAY, WEEK, 5 * WEEK]) {
      expect(parseDuration(formatDuration(ms))).toBe(ms);
    }
  });
});
