/**
 * The config files of a repository, read from GitHub as Probot's
 * `context.config` reads them (the repository's `.github/issue-leases.yml`;
 * without one, its organisation's, in the `.github` repository; then each
 * `_extends` in turn), but parsed here, within bounds, and kept apart.
 *
 * Bounds, because any repository of an installation (or one it extends) can
 * serve the file, and the parse runs on the thread that answers every
 * installation: the `yaml` parser's time grows with the keys of a mapping
 * (quadratically: 40,000 keys take seconds), so a file over 64 KiB, or with
 * more than 1,000 entries, is refused on its raw text, unparsed. An alias
 * bomb is refused when the aliases are expanded (`maxAliasCount`), and a
 * chain of more than 3 `_extends` is not followed.
 *
 * Kept apart, so that a reply can tell which file a value came from and the
 * line it is on, and show values only from the repository's own file
 * (issues.ts): a commenter may not be able to read the others. The config
 * check (config-check.ts) reads the repository's file as it is at a commit
 * (`readConfigFilesAt`), and lists each problem of a file that cannot be
 * used at its line and column (`UnreadableConfig.places`). A commit from a
 * fork follows an `_extends` only where its gate lets it (fork-extends.ts).
 * Each file is read through the installation's port (github/installation-port.ts).
 */
import type { InstallationGitHub } from "../github/installation-port.js";
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode, type YAMLError } from "yaml";
import { CONFIG_FILE, type FileRef, type PlacedProblem, UnreadableConfig } from "./config.js";
import { codeSpan } from "../github/code-span.js";

export type { FileRef } from "./config.js";

/** What a config file may be; see the module's comment. */
export const CONFIG_LIMITS = Object.freeze({ bytes: 64 * 1024, entries: 1000, extends: 3, aliases: 100 });

/** A position in a file, counted from 1. */
export interface Position {
  line: number;
  column: number;
}

/** A config file read and parsed: its mapping, and where each of its values was written. */
export interface ConfigFile {
  ref: FileRef;
  /** The repository's own `.github/issue-leases.yml`, which anyone who can comment there can read. */
  own: boolean;
  /** Its keys and values, `_extends` taken out. */
  config: Record<string, unknown>;
  /** Where the value at `path` (or the deepest part of it present) is written: its key's position, or the item's. */
  position(path: readonly PropertyKey[]): Position | null;
  /** Its `_extends`, as written, when the gate kept it from being followed (a fork's commit): nothing of that file was read. */
  unfollowed?: string;
}

/** Whether the file an `_extends` names may be read (asked before it is); see readConfigFilesAt. */
export type ExtendsGate = (ref: FileRef) => Promise<boolean>;

/** What the config files are read through: the contents API. */
export type ConfigFilesGitHub = Pick<InstallationGitHub, "configFile">;

/** The name of a file in a reply: the repository's own by its path, any other as `owner/repo:path`. */
export function fileName(ref: FileRef, own: boolean): string {
  return own ? `\`${CONFIG_FILE}\`` : codeSpan(`${ref.owner}/${ref.repo}:${ref.path}`);
}

/**
 * The files that make up the repository's config, the repository's own first
 * (the merge's winner), each extended file after the one naming it. A missing
 * file is left out; an empty list means no config anywhere. GitHub's errors
 * (other than a 404) are thrown: they are not the config's.
 */
export async function readConfigFiles(github: ConfigFilesGitHub, owner: string, repo: string): Promise<ConfigFile[] | UnreadableConfig> {
  let first = await readConfigFile(github, { owner, repo, path: CONFIG_FILE }, true);
  if (first === null && repo !== ".github") first = await readOrgFile(github, owner);
  if (first === null) return [];
  if (first instanceof UnreadableConfig) return first;
  return followExtends(github, owner, first);
}

/**
 * The repository's own file as it is at `commit`, and the files it extends
 * (as the app will read them: from their default branches); null when the
 * commit has no such file. For the config check of a push or pull request.
 * `gate`, for a commit that is not on the repository's own branches: an
 * `_extends` it refuses is not read, and the chain stops there (its value
 * kept in `unfollowed`).
 */
export async function readConfigFilesAt(
  github: ConfigFilesGitHub,
  owner: string,
  repo: string,
  commit: string,
  gate?: ExtendsGate,
): Promise<ConfigFile[] | UnreadableConfig | null> {
  const own = await readConfigFile(github, { owner, repo, path: CONFIG_FILE }, true, commit);
  if (own === null || own instanceof UnreadableConfig) return own;
  return followExtends(github, owner, own, gate);
}

/** `first` and the files its `_extends` lead to, as Probot follows them: from the last file read, each target's own `_extends` next. */
async function followExtends(github: ConfigFilesGitHub, owner: string, first: ConfigFile, gate?: ExtendsGate): Promise<ConfigFile[] | UnreadableConfig> {
  const files = [first];
  let last = first;
  for (let value = last.config["_extends"]; value !== undefined; value = last.config["_extends"]) {
    delete last.config["_extends"];
    // Told at the `_extends` key of the file that has it.
    const refused = (problem: string) => unreadable(last, problem, last.position(["_extends"]));
    if (files.length > CONFIG_LIMITS.extends) {
      return refused(`follows \`_extends\` more than ${CONFIG_LIMITS.extends} times; extend a file that extends no further.`);
    }
    const ref = extendsTarget(value, owner);
    if (ref === null) return refused(NAMES_NO_FILE);
    if (files.some((f) => sameFile(f.ref, ref))) return refused("has an `_extends` that leads back to a file already read.");
    if (gate !== undefined && !(await gate(ref))) {
      last.unfollowed = value as string;
      return files;
    }
    const next = await readConfigFile(github, ref, false);
    // A target that does not exist adds nothing, as in Probot.
    if (next === null) return files;
    if (next instanceof UnreadableConfig) return next;
    files.push(next);
    last = next;
  }
  return files;
}

/** The organisation's own file, its `_extends` not followed. */
export function readOrgFile(github: ConfigFilesGitHub, owner: string): Promise<ConfigFile | UnreadableConfig | null> {
  return readConfigFile(github, { owner, repo: ".github", path: CONFIG_FILE }, false);
}

/** What `_extends` says when its value is not a file's name (a local check says it too: check-config). */
export const NAMES_NO_FILE = "has an `_extends` that names no file: use `repo`, `owner/repo` or `repo:path.yml`.";

/** A file that cannot be used, its problem told at `at` (the file's start when unknown). */
function unreadable(file: { ref: FileRef; own: boolean }, problem: string, at: Position | null, placed?: PlacedProblem[]): UnreadableConfig {
  const problems = placed ?? [{ line: at?.line ?? 1, column: at?.column ?? 1, message: problem }];
  return new UnreadableConfig(problem, fileName(file.ref, file.own), { ref: file.ref, own: file.own, problems });
}

/** One file (at `commit`, or the default branch): null when it does not exist (404). */
async function readConfigFile(github: ConfigFilesGitHub, ref: FileRef, own: boolean, commit?: string): Promise<ConfigFile | UnreadableConfig | null> {
  const file = await github.configFile(ref, commit);
  if (file === null) return null;
  const { data, contentType: type } = file;
  // What Probot's plugin says too: the raw format of a directory is its listing, as JSON.
  if (type === "application/json; charset=utf-8") return unreadable({ ref, own }, "is a directory or a submodule, not a file.", null);
  const text = typeof data === "string" ? data : data instanceof ArrayBuffer ? new TextDecoder().decode(data) : JSON.stringify(data);
  return parseConfigFile(ref, own, text);
}

/** Parses one file's text, within CONFIG_LIMITS: too big a file is refused before the parser sees it. */
export function parseConfigFile(ref: FileRef, own: boolean, text: string): ConfigFile | UnreadableConfig {
  const refused = (problem: string, at: Position | null = null, placed?: PlacedProblem[]) => unreadable({ ref, own }, problem, at, placed);
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > CONFIG_LIMITS.bytes) {
    return refused(`is ${kib(bytes)}, over the ${kib(CONFIG_LIMITS.bytes)} a config may have, so it was not read; a config needs a few lines.`);
  }
  if (entries(text) > CONFIG_LIMITS.entries) {
    return refused(
      `has more than ${CONFIG_LIMITS.entries.toLocaleString("en")} entries (lines, list items and \`[\`, \`{\`, \`,\`), so it was not read; ` +
        "a config needs a few dozen.",
    );
  }

  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, logLevel: "error" });
  if (doc.errors.length > 0) {
    // A reply tells the first error; a check lists every one, each at its own position.
    const placed = doc.errors.map((e) => {
      const at = yamlErrorPosition(e, text, lines);
      return { ...at, message: `could not be read as YAML: ${syntaxProblem(e, own)}; fix its syntax.` };
    });
    const first = doc.errors[0]!;
    return refused(`could not be read as YAML: ${syntaxProblem(first, own, yamlErrorPosition(first, text, lines))}; fix its syntax.`, null, placed);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: CONFIG_LIMITS.aliases });
  } catch (e) {
    if (!(e instanceof ReferenceError)) throw e;
    // The yaml library's answer to an alias bomb ("billion laughs"), before it expands them; or an alias without its anchor.
    if (/excessive alias count/i.test(e.message)) return refused("repeats its aliases (`*name`) too often, so it was not read; write the values out.");
    return refused("could not be read as YAML: an alias (`*name`) has no anchor (`&name`) before it; fix its syntax.");
  }
  if (value === null || value === undefined) value = {};
  const position = (path: readonly PropertyKey[]): Position | null => {
    const offset = offsetOf(doc.contents, path);
    if (offset === null) return null;
    const { line, col } = lines.linePos(offset);
    return { line, column: col };
  };
  if (typeof value !== "object" || Array.isArray(value)) {
    return refused("is not a mapping of keys to values, such as `default_ttl: 7d`.", position([]));
  }
  return { ref, own, config: value as Record<string, unknown>, position };
}

/**
 * An upper bound on the nodes a parse of `text` makes, counted without
 * parsing: each line with content, and each flow item (`[`, `{`, `,`) or
 * block item (`- `, `? `) within a line. Comment lines count nothing.
 */
function entries(text: string): number {
  let count = 0;
  for (const line of text.split("\n")) {
    if (/^\s*(#|$)/.test(line)) continue;
    count += 1 + (line.match(/[,[{]|(?:^|\s)[-?](?=\s|$)/g)?.length ?? 0);
    if (count > CONFIG_LIMITS.entries) break;
  }
  return count;
}

function kib(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

/**
 * Where a YAML error is, within the file. The parser places an error found
 * at the end of the input (an unclosed quote or bracket) after the final
 * newline, on a line the file does not have ("line 3" of a two-line file):
 * such an error is placed at the end of the last line with text instead,
 * where the thing left open ends.
 */
export function yamlErrorPosition(error: YAMLError, text: string, lines: LineCounter): Position {
  const end = text.trimEnd().length;
  const { line, col } = lines.linePos(Math.min(error.pos[0], end));
  return { line, column: col };
}

/** Where the YAML broke (`at`, when given), and, in the repository's own file (which its readers can see), what the parser said. */
function syntaxProblem(error: YAMLError, own: boolean, at?: Position): string {
  const where = at === undefined ? "" : `line ${at.line}, column ${at.column}`;
  let what = "it is not valid YAML";
  if (error.code === "MULTIPLE_DOCS") what = "it holds more than one YAML document (a `---` line)";
  else if (own) {
    // The parser's first sentence, without its own position and excerpt; a long one is cut.
    const said = error.message.split(/ at line \d+, column \d+|\n/)[0]!.replace(/[\p{Cc}\p{Cf}\p{Co}]/gu, "?");
    if (said !== "") what = said.length > 120 ? `${said.slice(0, 120)}…` : said;
    what = codeSpan(what);
  }
  return where === "" ? what : `${where}: ${what}`;
}

function offsetOf(root: unknown, path: readonly PropertyKey[]): number | null {
  let node = root;
  let offset = rangeStart(node);
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment));
      if (pair === undefined) break;
      offset = rangeStart(pair.key) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === "number" && node.items[segment] !== undefined) {
      node = node.items[segment];
      offset = rangeStart(node) ?? offset;
    } else break;
  }
  return offset;
}

function rangeStart(node: unknown): number | null {
  const range = (node as YamlNode | null)?.range;
  return range === undefined || range === null ? null : range[0];
}

// Probot's config plugin's own pattern for `_extends`: `repo`, `owner/repo`, either with `:path.yml`.
const EXTENDS = /^(?:([a-z\d](?:[a-z\d]|-(?=[a-z\d])){0,38})\/)?([-_.\w\d]+)(?::([-_./\w\d]+\.ya?ml))?$/i;

/** The file an `_extends` value names (`owner`: the repository's owner), or null when it names none. */
export function extendsTarget(value: unknown, owner: string): FileRef | null {
  if (typeof value !== "string") return null;
  const m = EXTENDS.exec(value);
  if (m === null) return null;
  return { owner: m[1] ?? owner, repo: m[2]!, path: m[3] ?? CONFIG_FILE };
}

function sameFile(a: FileRef, b: FileRef): boolean {
  return a.owner.toLowerCase() === b.owner.toLowerCase() && a.repo.toLowerCase() === b.repo.toLowerCase() && a.path === b.path;
}
