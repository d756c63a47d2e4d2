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
import { codeSpan } from "../github/code-span.js";
import { CONFIG_FILE } from "./config.js";
import { type ConfigCheck, effectiveLines, problemLine } from "./config-check.js";

/** The check run's name, for branch protection's required checks. */
export const CONFIG_CHECK_NAME = "issue-leases config";

// GitHub refuses a summary over 65,535 characters: the list is cut short before that.
const SUMMARY_MAX = 60_000;

/** The check run of `check` on commit `headSha`. */
export function configCheckRun(check: ConfigCheck, headSha: string): CheckRun {
  const base = { name: CONFIG_CHECK_NAME, headSha };
  const unchecked = (check.unchecked ?? []).map(uncheckedNote).join("");
  if (check.ok) {
    const hidden = check.effective.some((e) => !("value" in e));
    const summary =
      "Once this commit is on the default branch, commands follow this config (`# default`: the file does not set it):\n\n" +
      fenced(effectiveLines(check.effective), "yaml") +
      (hidden ? "\n\nA value set in another file (`_extends`) is not shown: a reader of this check may not be able to read that repository." : "") +
      unchecked;
    const title = `${CONFIG_FILE} is valid${unchecked === "" ? "" : " on its own (_extends not checked)"}`;
    return { ...base, conclusion: "success", title, summary };
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
    fenced(lines, "text") +
    unchecked;
  const annotations: CheckAnnotation[] = problems
    .filter((p) => p.file === CONFIG_FILE)
    .slice(0, 50)
    .map((p) => ({ path: CONFIG_FILE, line: p.line, column: p.column, message: p.message }));
  return { ...base, conclusion: "failure", title: `${count} in ${where}`, summary, annotations };
}

/**
 * Why an `_extends` was not followed, in the same words whatever its target
 * is (private, internal, missing): the refusal itself must tell nothing.
 */
function uncheckedNote(extended: string): string {
  return (
    `\n\n${codeSpan(`_extends: ${extended}`)} was not checked: on a pull request from a fork, the check reads another repository's file only ` +
    "when that repository is public, so this file was checked on its own. It is checked with what it extends once it is pushed " +
    "to a branch of this repository (merging the pull request does)."
  );
}

/** Lines in a fenced code block whose fence no backtick run inside can close. */
function fenced(lines: string[], info: string): string {
  const text = lines.join("\n");
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${text}\n${fence}`;
}
