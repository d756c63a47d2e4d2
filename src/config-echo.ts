/**
 * How the config's error messages quote what the user wrote
 * (config-fields.ts, config-schema.ts, config-issues.ts): short, one line,
 * and unable to break the reply's Markdown.
 */

// Echoed user values are cut to this many characters.
const ECHO_MAX = 40;

export function keyList(keys: string[]): string {
  return keys.map((k) => `\`${k}\``).join(", ");
}

/** A user-written key, cut short and stripped of characters that would break a code span or the reply. */
export function safeKey(key: string): string {
  return clip(key).replace(/[\p{Cc}\p{Cf}`]/gu, "?");
}

/** A user-written value for an error message: short, quoted, one line. */
export function echo(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(clip(value).replace(/[\p{Cc}\p{Cf}`]/gu, "?"));
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
