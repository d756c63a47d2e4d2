/**
 * App-written text that may carry a user's value (a config error): no mentions, no HTML.
 * Code spans are left as they are: they show their content literally (an
 * escape there would show as `&lt;`) and a mention in one notifies nobody.
 */
export function safeText(text: string): string {
  // A line at a time: a code span that markdown would not see (its closer in another paragraph or list item) is escaped.
  return text.split("\n").map(safeLine).join("\n");
}

function safeLine(line: string): string {
  const escape = (s: string) => s.replace(/@/g, "@\u200b").replace(/</g, "&lt;");
  let out = "";
  let done = 0;
  const runs = /`+/g;
  for (let run = runs.exec(line); run !== null; run = runs.exec(line)) {
    // A backslash before it makes the first backtick literal (CommonMark): treat the whole run as text, to be safe.
    const backslashes = /\\*$/.exec(line.slice(done, run.index))![0].length;
    if (backslashes % 2 === 1) continue;
    // A code span closes at the next run of exactly as many backticks; without one the run is text.
    const closer = new RegExp(`(?<!\`)${run[0]}(?!\`)`, "g");
    closer.lastIndex = run.index + run[0].length;
    const close = closer.exec(line);
    if (close === null) continue;
    const end = close.index + run[0].length;
    out += escape(line.slice(done, run.index)) + line.slice(run.index, end);
    done = end;
    runs.lastIndex = end;
  }
  return out + escape(line.slice(done));
}
