/** A single-line code span that shows `text` literally: no mentions, no markdown. */
export function codeSpan(text: string, max = 120): string {
  let s = text.replace(/[\r\n]+/g, " ");
  if (s.length > max) s = `${s.slice(0, max)}…`;
  const longest = Math.max(0, ...Array.from(s.matchAll(/`+/g), (m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  const pad = s.startsWith("`") || s.endsWith("`") ? " " : "";
  return `${fence}${pad}${s}${pad}${fence}`;
}
