/**
 * `issue-leases check-config [FILE] [--json]`: a config file checked before
 * it is committed, as the check run `issue-leases config` checks it on
 * GitHub (config/config-check.ts), with the same lines. Offline: no network,
 * no database. An `_extends` names a file on GitHub, which is not read: the
 * rest of the file is checked alone, and the output says so.
 */
import { readFileSync } from "node:fs";
import { CONFIG_FILE, UnreadableConfig } from "../config/config.js";
import { checkConfig, effectiveLines, type Problem, problemLine } from "../config/config-check.js";
import { targetPolicy } from "../settings/work-settings.js";
import { extendsTarget, NAMES_NO_FILE, parseConfigFile } from "../config/files.js";
import { CliError, EXIT, usageError } from "./cli-error.js";
import type { CliIo } from "./cli-io.js";

export const CHECK_CONFIG_HELP = `Usage: issue-leases check-config [FILE] [--json]

Checks a config file as the app reads it, before you commit it (no network,
no database). Each problem is a line of its own, with its line and column
(counted from 1), the same lines as the check run \`issue-leases config\`:

  .github/issue-leases.yml:3:3: \`labels.holder\`: \`nope\` must contain \`{holder}\`, …

FILE defaults to .github/issue-leases.yml in the current directory, and the
lines name it as given.

  --json   {"ok", "problems": [{"file", "line", "column", "message"}], "config",
           "defaults", "notes"}: "config" is the config in force when ok (null
           otherwise), "defaults" the keys the file does not set

An \`_extends\` names a file on GitHub, which cannot be read offline: a note
says so, and the rest of the file is checked alone (the check run on GitHub
checks them merged).

Pre-commit hook (.git/hooks/pre-commit):
  npx issue-leases check-config || exit 1

Exit codes: 0 the file is good, 1 it has problems, 2 usage error or FILE cannot be read.`;

/** Checks the file; prints the problems (exit 1) or "FILE: OK" and the config in force (exit 0). */
export function runCheckConfig(positionals: string[], values: { json?: unknown }, io: CliIo): number {
  const [file = CONFIG_FILE, ...extra] = positionals;
  if (extra.length > 0) throw usageError(`unexpected argument ${extra[0]}; see \`issue-leases check-config --help\``);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a folder" : (err as Error).message;
    throw new CliError(`cannot read ${file}: ${why}`, EXIT.usage);
  }

  const parsed = parseConfigFile({ owner: "", repo: "", path: file }, true, text);
  const problems: Problem[] = [];
  const notes: string[] = [];
  if (!(parsed instanceof UnreadableConfig) && Object.hasOwn(parsed.config, "_extends")) {
    const value = parsed.config["_extends"];
    delete parsed.config["_extends"];
    const at = parsed.position(["_extends"]) ?? { line: 1, column: 1 };
    if (extendsTarget(value, "owner") === null) problems.push({ file, ...at, message: NAMES_NO_FILE });
    else {
      notes.push(
        `${file}:${at.line}:${at.column}: \`_extends\` names a file on GitHub, which cannot be read offline: ` +
          "this file is checked alone; the check run `issue-leases config` checks them merged.",
      );
    }
  }
  // Targets as the app would check them where this runs (EVENTS_WEBHOOK_ALLOW_PRIVATE).
  const check = checkConfig(parsed instanceof UnreadableConfig ? parsed : [parsed], file, targetPolicy(io.env));
  if (!check.ok) problems.push(...check.problems);
  problems.sort((a, b) => a.line - b.line || a.column - b.column);
  const ok = problems.length === 0;

  if (values.json === true) {
    const effective = check.ok ? check.effective : [];
    io.out(
      JSON.stringify({
        ok,
        problems,
        config: ok ? Object.fromEntries(effective.map((e) => [e.key, e.value])) : null,
        defaults: ok ? effective.filter((e) => e.from === "default").map((e) => e.key) : [],
        notes,
      }),
    );
    return ok ? EXIT.ok : EXIT.failure;
  }
  for (const note of notes) io.err(`note: ${note}`);
  if (!ok) {
    for (const p of problems) io.out(problemLine(p));
    return EXIT.failure;
  }
  io.out(`${file}: OK; the config in force (# default: the file does not set it):`);
  if (check.ok) for (const line of effectiveLines(check.effective)) io.out(`  ${line}`);
  return EXIT.ok;
}
