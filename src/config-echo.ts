/**
 * How the config's error messages quote what the user wrote
 * (config-fields.ts, config-schema.ts, config-issues.ts): short, one line,
 * and unable to break the reply's Markdown. A value is shown as inline code,
 * never in quotes: the file may come from another repository (`_extends`, the
 * organisation's `.github`), and a link, an image or a mention in quotes would
 * render in a comment posted as the app.
 */
import { codeSpan } from "./reflect/render.js";

// Echoed user values are cut to this many characters.
const ECHO_MAX = 40;

export function keyList(keys: string[]): string {
  return keys.map((k) => `\`${k}\``).join(", ");
}

/** A user-written key, cut short and stripped of characters that would break a code span or the reply. */
export function safeKey(key: string): string {
  return clip(key).replace(/[\p{Cc}\p{Cf}`]/gu, "?");
}

/** A user-written value for an error message: short, one line, as inline code whose fence no backtick inside can close. */
export function echo(value: unknown): string {
  if (typeof value === "string") {
    // Control and format characters (newlines, bidi overrides) would break the line or hide what it says.
    const shown = clip(value).replace(/[\p{Cc}\p{Cf}]/gu, "?");
    // An empty code span is no code span in CommonMark: its backticks would show.
    return shown.trim() === "" ? "an empty string" : codeSpan(shown, Infinity);
  }
  if (typeof value === "number" || typeof value === "boolean") return `\`${clip(String(value))}\``;
  return describeKind(value);
}

export function describeKind(value: unknown): string {
  if (value === null) return "an empty value";
  if (value === undefined) return "missing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return "a string";
  if (typeof value === "number" || typeof value === "bigint") return "a number";
  if (typeof value === "boolean") return `\`${String(value)}\``;
  return `a ${typeof value}`;
}

function clip(text: string): string {
  // Slice first so a huge string is never split into code points whole.
  const points = [...text.slice(0, ECHO_MAX * 2)];
  return points.length > ECHO_MAX || text.length > ECHO_MAX * 2 ? `${points.slice(0, ECHO_MAX).join("")}…` : text;
}
