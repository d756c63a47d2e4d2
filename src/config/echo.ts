/**
 * How the config's error messages quote what the user wrote
 * (fields.ts, schema.ts, issues.ts): short, one line,
 * and unable to break the reply's Markdown. A value is shown as inline code,
 * never in quotes: the file may come from another repository (`_extends`, the
 * organisation's `.github`), and a link, an image or a mention in quotes would
 * render in a comment posted as the app.
 */
import { codeSpan } from "../github/code-span.js";

// Echoed user values are cut to this many characters.
const ECHO_MAX = 40;

// Private-use characters around a value's text and the words said instead (stripped from what users wrote).
const [OPEN, OR, CLOSE] = ["\uE000", "\uE001", "\uE002"];
const MARKED = /\uE000([^\uE001]*)\uE001([^\uE002]*)\uE002/g;
// Characters that would break the line (newlines), hide what it says (bidi overrides) or forge a mark above.
const UNSHOWN = /[\p{Cc}\p{Cf}\p{Co}]/gu;

export function keyList(keys: string[]): string {
  return keys.map((k) => `\`${k}\``).join(", ");
}

/** A user-written key, cut short and stripped of characters that would break a code span or the reply. */
export function safeKey(key: string): string {
  return clip(key).replace(UNSHOWN, "?").replace(/`/g, "?");
}

/**
 * Text about a value that a message shows only when the value is in the
 * repository's own file; `instead` otherwise (see `showValues`). A message
 * from a file the commenter may not be able to read states the rule alone.
 */
export function ownOnly(shown: string, instead: string): string {
  return `${OPEN}${shown}${OR}${instead}${CLOSE}`;
}

/** A message with the values in it shown (`own`), or the words said instead. */
export function showValues(message: string, own: boolean): string {
  return message.replace(MARKED, (_, shown: string, instead: string) => (own ? shown : instead));
}

/** A user-written value for an error message (`instead`: the words for it elsewhere, see `ownOnly`). */
export function echo(value: unknown, instead = "its value"): string {
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return ownOnly(shownValue(value), instead);
  return describeKind(value);
}

/** `, not <value>`, where values are shown; nothing elsewhere: "must be `true` or `false`." states the rule alone. */
export function notThis(value: unknown): string {
  return typeof value === "object" || value === undefined ? `, not ${describeKind(value)}` : ownOnly(`, not ${shownValue(value)}`, "");
}

/** Short, one line, as inline code whose fence no backtick inside can close. */
function shownValue(value: unknown): string {
  if (typeof value !== "string") return `\`${clip(String(value))}\``;
  const shown = clip(value).replace(UNSHOWN, "?");
  // An empty code span is no code span in CommonMark: its backticks would show.
  return shown.trim() === "" ? "an empty string" : codeSpan(shown, Infinity);
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
