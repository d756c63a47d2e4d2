/**
 * The one parser of numbers from the environment: a value blank or unset is
 * the default; anything else is the number it says, within its bounds, or
 * the start ends naming the variable, what it must be, and what it is.
 */
import { SettingError, type Env } from "./setting-row.js";
import { givenValue, rawValue, type SettingName } from "./settings-table.js";

export interface NumberRule {
  /** Whole numbers only (a rate may be 1.5 a minute; a count of streams may not). */
  whole: boolean;
  min: number;
  max?: number;
  /** What it must be, for the message: "a whole number of streams, 0 or more". */
  what: string;
}

/** `text` (trimmed) as a number within the bounds, or null. */
export function numberIn(text: string, rule: Omit<NumberRule, "what">): number | null {
  const n = Number(text.trim());
  if (text.trim() === "" || !(rule.whole ? Number.isSafeInteger(n) : Number.isFinite(n))) return null;
  return n >= rule.min && (rule.max === undefined || n <= rule.max) ? n : null;
}

/** The variable's number; `fallback` when unset or blank. Throws `NAME must be WHAT; it is "VALUE"`. */
export function numberSetting(env: Env, name: SettingName, fallback: number, rule: NumberRule): number {
  const text = givenValue(env, name);
  if (text === undefined) return fallback;
  const n = numberIn(text, rule);
  if (n === null) throw new SettingError(`${name} must be ${rule.what}; it is "${rawValue(env, name)}"`);
  return n;
}
