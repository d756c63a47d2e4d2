/**
 * Where a repository's config comes from: its own `.github/issue-leases.yml`
 * (or, without one, its organisation's, in the organisation's `.github`
 * repository, with `_extends` followed: what Probot's `context.config` reads),
 * and the organisation's own file, whose `max_leases_per_holder_in_org`
 * applies to every repository of the organisation, even one with a file of
 * its own. The strictest applicable limit wins.
 *
 * Reads: the repository's file and, when it has none, the organisation's
 * (two reads, as before); a repository with a valid file of its own also
 * reads the organisation's file (one more read), unless its `_extends`
 * already did.
 * Both are cached together per repository (cache.ts).
 */
import deepmerge from "deepmerge";
import type { Context } from "probot";
import { z } from "zod";
import { DEFAULT_TARGET_POLICY, type TargetPolicy } from "../events/target-guard.js";
import { CONFIG_FILE, type ConfigResult, parseConfig, UnreadableConfig } from "./config.js";
import { leaseLimitSchema } from "./fields.js";
import { showValues } from "./echo.js";
import { installationGitHub } from "../github/installation-port.js";
import { type ConfigFile, fileName, readConfigFiles, readOrgFile } from "./files.js";
import type { Locate, Site } from "./issues.js";

/** The raw YAML of both files: each null when the file does not exist, or UnreadableConfig. */
export interface ConfigSources {
  /** The repository's config as `context.config` gives it: its files merged. */
  repo: unknown;
  /** The organisation's own file, from its `.github` repository. */
  org: unknown;
  /** The files merged into `repo`, the repository's own first; absent: all of it is the repository's own file. */
  files?: readonly ConfigFile[];
  /** The organisation's file as read, for the line of a problem in it. */
  orgFile?: ConfigFile;
}

/**
 * Reads both files. GitHub's errors (a status) are thrown, not cached; a file
 * that cannot be used is UnreadableConfig, which the parse turns into a reply.
 * `targets`: where outgoing webhooks may go, for whether the repository's file is valid.
 */
export async function readConfigSources(context: Pick<Context, "octokit" | "repo">, targets: TargetPolicy = DEFAULT_TARGET_POLICY): Promise<ConfigSources> {
  const { owner, repo } = context.repo() as { owner: string; repo: string };
  const github = installationGitHub(context.octokit);
  const files = await readConfigFiles(github, owner, repo);
  if (files instanceof UnreadableConfig) return { repo: files, org: null };
  // As `context.config` merges them: deepmerge, later files over earlier ones, so the repository's own file wins.
  const repoRaw = files.length === 0 ? null : mergeFiles(files);
  const orgFile = files.find((f) => f.ref.owner.toLowerCase() === owner.toLowerCase() && f.ref.repo === ".github" && f.ref.path === CONFIG_FILE);
  if (orgFile !== undefined) return { repo: repoRaw, org: orgFile.config, files, orgFile };
  // Nothing in either place: the organisation has no file (Probot looked).
  // A broken file of the repository's own is all its reply is about.
  if (repoRaw === null || !parseConfig(repoRaw, undefined, targets).ok) return { repo: repoRaw, org: null, files };
  const org = await readOrgFile(github, owner);
  if (org === null || org instanceof UnreadableConfig) return { repo: repoRaw, org, files };
  return { repo: repoRaw, org: org.config, files, orgFile: org };
}

const ORG_FILE = "the organisation's `.github/issue-leases.yml` (in its `.github` repository)";
const orgLimitSchema = z.object({ max_leases_per_holder_in_org: leaseLimitSchema().optional() }).loose();

/** The repository's config, with the organisation's `max_leases_per_holder_in_org` applied when it is stricter. */
export function parseConfigSources(sources: ConfigSources, targets: TargetPolicy = DEFAULT_TARGET_POLICY): ConfigResult {
  const result = parseConfig(sources.repo, sources.files === undefined ? undefined : locateIn(sources.files), targets);
  if (!result.ok) return result;
  const { org } = sources;
  if (org instanceof UnreadableConfig) {
    return { ok: false, error: `${ORG_FILE} ${org.problem} Until then commands here change nothing.` };
  }
  if (org === null || org === undefined || typeof org !== "object" || Array.isArray(org)) return result;
  // Only this key of the organisation's file bears on a repository with a file of its own.
  const parsed = orgLimitSchema.safeParse(org);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = sources.orgFile?.position(["max_leases_per_holder_in_org"]);
    const line = at === null || at === undefined ? "" : `, line ${at.line}`;
    // Another repository's file: the rule, not its value.
    return { ok: false, error: `${ORG_FILE}${line}: \`max_leases_per_holder_in_org\`: ${showValues(issue.message, false)}` };
  }
  const limit = strictest(result.config.maxLeasesPerHolderInOrg, parsed.data.max_leases_per_holder_in_org ?? 0);
  if (limit === result.config.maxLeasesPerHolderInOrg) return result;
  return { ok: true, config: Object.freeze({ ...result.config, maxLeasesPerHolderInOrg: limit }) };
}

/**
 * Which files gave the value at a path of the merged config, each with the
 * path in that file. deepmerge lets the first file that has a key win, merges
 * mappings key by key, and joins lists, the last file's items first: a
 * list's items may come from any file that has it, and item `i` of the
 * merged list is an item of one of them.
 */
function writtenIn(files: readonly ConfigFile[], path: readonly PropertyKey[]): Array<{ file: ConfigFile; path: PropertyKey[] }> {
  let holders: Array<{ file: ConfigFile; value: unknown }> = [];
  let candidates = files.map((file) => ({ file, value: file.config as unknown }));
  for (const [depth, segment] of path.entries()) {
    const next = candidates
      .filter((c) => isMapping(c.value) && Object.hasOwn(c.value, segment as string))
      .map((c) => ({ file: c.file, value: (c.value as Record<string, unknown>)[segment as string] }));
    if (next.length === 0) break;
    holders = candidates = next;
    if (next.some((c) => Array.isArray(c.value))) {
      let index = path[depth + 1];
      if (typeof index !== "number") return holders.map((h) => ({ file: h.file, path: [...path] }));
      for (const h of [...holders].reverse()) {
        const length = Array.isArray(h.value) ? h.value.length : 0;
        if (index < length) return [{ file: h.file, path: [...path.slice(0, depth + 1), index, ...path.slice(depth + 2)] }];
        index -= length;
      }
      return [];
    }
    if (!next.every((c) => isMapping(c.value))) break;
  }
  // Past a value that is not a mapping, the first file's wins.
  const winners = holders.length > 0 && !holders.every((h) => isMapping(h.value)) ? holders.slice(0, 1) : holders;
  return winners.map((h) => ({ file: h.file, path: [...path] }));
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Where each value came from: the first other file that gave it (named, with
 * its position), or else the repository's own file (with its position when
 * written there; a value no file gave is the default).
 */
export function locateIn(files: readonly ConfigFile[]): Locate {
  return (path): Site => {
    const written = writtenIn(files, path);
    const other = written.find((w) => !w.file.own);
    const at = (other ?? written[0])?.file.position((other ?? written[0])!.path) ?? null;
    const position = at === null ? {} : { line: at.line, column: at.column };
    if (other === undefined) return { own: true, ...position };
    const { owner, repo, path: file } = other.file.ref;
    return { own: false, file: fileName(other.file.ref, false), source: `${owner}/${repo}:${file}`, ...position };
  };
}

/** The files' keys merged as `context.config` merges them (deepmerge, later files under earlier ones): the repository's own file wins. */
export function mergeFiles(files: readonly ConfigFile[]): Record<string, unknown> {
  return deepmerge.all<Record<string, unknown>>([{}, ...files.map((f) => f.config).reverse()]);
}

/** The stricter of two limits, 0 meaning none. */
function strictest(a: number, b: number): number {
  if (a === 0) return b;
  if (b === 0) return a;
  return Math.min(a, b);
}
