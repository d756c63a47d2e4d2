/**
 * The check run `issue-leases config`: a config check (config-check.ts) as
 * GitHub shows it on a commit. A failure lists every problem, one a line,
 * `.github/issue-leases.yml:LINE:COLUMN: message`, and marks those of the
 * file itself on its lines (annotations, beside the pull request's diff); a
 * success shows the config in force, defaults marked.
 *
 * Both lists go in a fenced code block: nothing in a value or a message can
 * render there (a link, a mention), and each line reads as a linter's does.
 */
import type { CheckAnnotation, CheckRun } from "../github/github-port.js";
import { CONFIG_FILE } from "./config.js";
import { type ConfigCheck, effectiveLines, problemLine } from "./config-check.js";

/** The check run's name, for branch protection's required checks. */
export const CONFIG_CHECK_NAME = "issue-leases config";

// GitHub refuses a summary over 65,535 characters: the list is cut short before that.
const SUMMARY_MAX = 60_000;

/** The check run of `check` on commit `headSha`. */
export function configCheckRun(check: ConfigCheck, headSha: string): CheckRun {
  const base = { name: CONFIG_CHECK_NAME, headSha };
  if (check.ok) {
    const hidden = check.effective.some((e) => !("value" in e));
    const summary =
      "Once this commit is on the default branch, commands follow this config (`# default`: the file does not set it):\n\n" +
      fenced(effectiveLines(check.effective), "yaml") +
      (hidden ? "\n\nA value set in another file (`_extends`) is not shown: a reader of this check may not be able to read that repository." : "");
    return { ...base, conclusion: "success", title: `${CONFIG_FILE} is valid`, summary };
  }

  const { problems } = check;
  const count = `${problems.length} problem${problems.length === 1 ? "" : "s"}`;
  const where = problems.every((p) => p.file === CONFIG_FILE) ? CONFIG_FILE : "the config";
  const lines: string[] = [];
  let length = 0;
  for (const p of problems) {
    const line = problemLine(p);
    if (length + line.length > SUMMARY_MAX) break;
    lines.push(line);
    length += line.length + 1;
  }
  if (lines.length < problems.length) lines.push(`… and ${problems.length - lines.length} more`);
  const summary =
    "On the default branch, a config with these problems turns every command into an `invalid` reply, and nothing changes until it is fixed:\n\n" +
    fenced(lines, "text");
  const annotations: CheckAnnotation[] = problems
    .filter((p) => p.file === CONFIG_FILE)
    .slice(0, 50)
    .map((p) => ({ path: CONFIG_FILE, line: p.line, column: p.column, message: p.message }));
  return { ...base, conclusion: "failure", title: `${count} in ${where}`, summary, annotations };
}

/** Lines in a fenced code block whose fence no backtick run inside can close. */
function fenced(lines: string[], info: string): string {
  const text = lines.join("\n");
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${text}\n${fence}`;
}
