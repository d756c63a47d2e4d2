/**
 * `issue-leases import-config [FILE]`: another claim bot's configuration as
 * the equivalent `.github/issue-leases.yml`, printed on stdout (src/cli/import/
 * has each bot's mapping). Reads a file or standard input; writes nothing,
 * asks nothing of GitHub or the database.
 */
import { readFileSync, statSync } from "node:fs";
import { parse as parseToml, TomlError } from "smol-toml";
import { LineCounter, parseDocument } from "yaml";
import { yamlErrorPosition } from "../config/files.js";
import { CliError, EXIT, usageError } from "./cli-error.js";
import type { CliIo } from "./cli-io.js";
import { importAssignIssueAction } from "./import/assign-issue-action.js";
import { type Imported, isMapping, NotThisBot } from "./import/imported.js";
import { readJsExports } from "./import/js-exports.js";
import { importTriagebot } from "./import/triagebot.js";
import { importZulipbot, ZULIPBOT_TOPICS } from "./import/zulipbot.js";

export const PEERS = ["assign-issue-action", "triagebot", "zulipbot"] as const;
export type Peer = (typeof PEERS)[number];

export const IMPORT_CONFIG_HELP = `Usage: issue-leases import-config [FILE | -] [--from BOT]

Reads another claim bot's configuration and prints the equivalent
.github/issue-leases.yml on stdout: each setting with a comment naming the
setting it came from, the commands people already type kept as \`commands:\`
aliases, and, as comments at the end, every other setting: those issue-leases
already follows, and those with no equivalent, each with why. No setting of
the file is left out. Writes no file; reads neither GitHub nor the database.

  FILE        the other bot's file (without one, or with -, standard input):
                assign-issue-action  a workflow (.github/workflows/*.yml) with a step
                                     \`uses: takanome-dev/assign-issue-action@…\`; an
                                     input \`\${{ env.<NAME> }}\` is read from the workflow's
                                     own \`env:\`, any other expression is named
                triagebot            triagebot.toml (its [assign] table)
                zulipbot             its config module (config.js, config.ts), read
                                     without running it, or its \`issues\` and
                                     \`activity\` settings as JSON
  --from BOT  which of the three it is; default: told from the file's content

For example: issue-leases import-config .github/workflows/assign.yml > .github/issue-leases.yml
Exit 1 when the file cannot be read or is none of these.`;

/** More than any of these bots' files needs; a bigger input is refused unread. */
const MAX_BYTES = 1024 * 1024;

type Values = Record<string, string | boolean | undefined>;

export function peerOption(values: Values): Peer | null {
  if (values.from === undefined) return null;
  const peer = PEERS.find((p) => p === values.from);
  if (peer === undefined) throw usageError(`--from ${JSON.stringify(values.from)}: expected one of ${PEERS.join(", ")}`);
  return peer;
}

export async function runImportConfig(positionals: string[], values: Values, io: CliIo): Promise<number> {
  const from = peerOption(values);
  if (positionals.length > 1) throw usageError(`unexpected argument ${positionals[1]}; see \`issue-leases import-config --help\``);
  const file = positionals[0] ?? "-";
  const text = file === "-" ? await readStdin(io) : readInput(file);
  const imported = importConfig(text, from);
  io.out(imported.render().trimEnd());
  const s = (n: number) => (n === 1 ? "" : "s");
  const unmapped = imported.unmapped.length;
  const same = imported.same.length === 0 ? "" : `; ${imported.same.length} that need${imported.same.length === 1 ? "s" : ""} no setting`;
  io.err(
    `imported from ${imported.peer}: ${imported.settings.length} setting${s(imported.settings.length)}${same}; ` +
      (unmapped === 0 ? "every setting read has an equivalent" : `${unmapped} with no equivalent, named at the end as comments`),
  );
  return EXIT.ok;
}

function readInput(file: string): string {
  try {
    if (statSync(file).size > MAX_BYTES) throw new CliError(`${file} is over 1 MiB: no claim bot's config is that big`, EXIT.failure);
    return readFileSync(file, "utf8");
  } catch (err) {
    if (err instanceof CliError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new CliError(`cannot read ${file} (${code ?? (err as Error).message}): give the other bot's config file`, EXIT.failure);
  }
}

async function readStdin(io: CliIo): Promise<string> {
  const text = io.readStdin ? await io.readStdin(MAX_BYTES) : null;
  if (text === null) throw usageError("import-config needs a FILE, or the file on standard input; see `issue-leases import-config --help`");
  return text;
}

/** The config `text` as issue-leases config: read as `from`'s, or as whichever bot's its content shows. */
export function importConfig(text: string, from: Peer | null): Imported {
  text = text.replace(/^\uFEFF/, "");
  if (Buffer.byteLength(text, "utf8") > MAX_BYTES) throw new CliError("the input is over 1 MiB: no claim bot's config is that big", EXIT.failure);
  const failed = (message: string) => new CliError(message, EXIT.failure);
  const as = (peer: Peer, run: () => Imported): Imported => {
    try {
      return run();
    } catch (err) {
      if (err instanceof NotThisBot) throw failed(`not ${peer}'s config: ${err.message}`);
      throw err;
    }
  };
  if (from === "zulipbot") {
    const json = readJson(text);
    if (json.ok) return as(from, () => importZulipbot(json.value));
    if (looksLikeModule(text) || looksLikeJs(text)) return as(from, () => importZulipbotModule(text));
    throw failed(`not JSON, nor a JavaScript module: ${json.error}`);
  }
  if (from === "assign-issue-action") {
    const yaml = readYaml(text);
    if (!yaml.ok) throw failed(`not YAML: ${yaml.error}`);
    return as(from, () => importAssignIssueAction(yaml.value));
  }
  if (from === "triagebot") {
    const toml = readToml(text);
    if (!toml.ok) throw failed(`not TOML: ${toml.error}`);
    return as(from, () => importTriagebot(toml.value));
  }

  // Told from the content: JSON is zulipbot's (JSON is YAML too, so it comes first), and so is a JavaScript module (its first
  // statement says so); a workflow is assign-issue-action's, TOML triagebot's.
  const json = readJson(text);
  if (json.ok) return as("zulipbot", () => importZulipbot(json.value));
  if (looksLikeModule(text)) return as("zulipbot", () => importZulipbotModule(text));
  const yaml = readYaml(text);
  if (yaml.ok) {
    try {
      return importAssignIssueAction(yaml.value);
    } catch (err) {
      if (!(err instanceof NotThisBot)) throw err;
      // A YAML mapping may still be TOML's `key = value` lines read as one string: TOML has its say below.
      if (isMapping(yaml.value)) throw failed(`a YAML file, but ${err.message}; give --from if it is another bot's`);
    }
  }
  const toml = readToml(text);
  if (toml.ok) return importTriagebot(toml.value);
  if (looksLikeJs(text)) return as("zulipbot", () => importZulipbotModule(text));
  throw failed(`could not tell which bot's config this is (not JSON, a workflow, or TOML); give --from ${PEERS.join("|")}`);
}

/** zulipbot's config module (config.js, config.ts), its exported values read without running it. */
function importZulipbotModule(text: string): Imported {
  const exports = readJsExports(text);
  // Exports none of zulipbot's topics as a value (nothing, or only what it computes: `export default config`).
  if (exports === null || !ZULIPBOT_TOPICS.some((k) => Object.hasOwn(exports, k))) throw new CliError(JS_UNREAD, EXIT.failure);
  return importZulipbot(exports, "the values its config module exports, read without running it");
}

const JS_UNREAD =
  "a JavaScript or TypeScript module that exports no value this import can read (`exports.issues = {…}`, `module.exports = {…}`, " +
  '`export const issues = {…}`); issue-leases does not run it: write its `issues` and `activity` objects as JSON, {"issues": …, "activity": …}, and give that file';

/** Whether the first statement, after comments, is one a module begins with (`exports.x =`, `export const`, `"use strict"`, `require`). */
function looksLikeModule(text: string): boolean {
  const body = text.replace(/^(?:\s|\/\/[^\n]*|\/\*[\s\S]*?\*\/|#![^\n]*)*/, "");
  return /^(?:exports\s*\.|module\s*\.\s*exports\b|export\s|import\s|const\s|let\s|var\s|["']use strict["'])/.test(body);
}

/** Whether any line reads as a module's statement (asked once the other formats failed). */
function looksLikeJs(text: string): boolean {
  return /^\s*(?:export\s|import\s|module\.exports\b|exports\.|const\s|let\s|var\s)/m.test(text);
}

type Read = { ok: true; value: unknown } | { ok: false; error: string };

function readJson(text: string): Read {
  if (!/^\s*[{[]/.test(text)) return { ok: false, error: "it does not start with `{`" };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

function readYaml(text: string): Read {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, logLevel: "error" });
  const error = doc.errors[0];
  if (error !== undefined) {
    const at = yamlErrorPosition(error, text, lines);
    return { ok: false, error: `line ${at.line}, column ${at.column}: ${error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "")}` };
  }
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: 100 }) as unknown };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

function readToml(text: string): Read {
  try {
    return { ok: true, value: parseToml(text) };
  } catch (err) {
    if (err instanceof TomlError) return { ok: false, error: `line ${err.line}, column ${err.column}: ${err.message.split("\n")[0]}` };
    return { ok: false, error: (err as Error).message };
  }
}
