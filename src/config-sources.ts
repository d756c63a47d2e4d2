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
 * Both are cached together per repository (config-cache.ts).
 */
import deepmerge from "deepmerge";
import type { Context } from "probot";
import { z } from "zod";
import { CONFIG_FILE, CONFIG_NAME, type ConfigResult, leaseLimitSchema, parseConfig, UnreadableConfig } from "./config.js";

/** The raw YAML of both files: each null when the file does not exist, or UnreadableConfig. */
export interface ConfigSources {
  /** The repository's config as `context.config` gives it. */
  repo: unknown;
  /** The organisation's own file, from its `.github` repository. */
  org: unknown;
}

const PATH = `.github/${CONFIG_NAME}`;

interface ConfigFile {
  owner: string;
  repo: string;
  path: string;
  config: Record<string, unknown> | null;
}

/**
 * Reads both files. GitHub's errors (a status) are thrown, not cached; a file
 * that is not YAML is UnreadableConfig, which the parse turns into a reply.
 */
export async function readConfigSources(context: Pick<Context, "octokit" | "repo">): Promise<ConfigSources> {
  const { owner, repo } = context.repo() as { owner: string; repo: string };
  let files: ConfigFile[];
  let merged: unknown;
  try {
    // As `context.config(name)` does it, keeping the list of files read: the
    // same reads, the same merge (deepmerge, later files over earlier ones).
    ({ config: merged, files } = (await context.octokit.config.get({
      owner,
      repo,
      path: PATH,
      defaults: (configs) => deepmerge.all<Record<string, unknown>>([{}, ...configs]),
    })) as { config: unknown; files: ConfigFile[] });
  } catch (error) {
    return { repo: unreadable(error), org: null };
  }
  const repoRaw = files.some((file) => file.config !== null) ? merged : null;
  const isOrgFile = (file: ConfigFile) => file.owner.toLowerCase() === owner.toLowerCase() && file.repo === ".github" && file.path === PATH;
  const read = files.find(isOrgFile);
  if (read !== undefined) return { repo: repoRaw, org: read.config };
  // Nothing in either place: the organisation has no file (Probot looked).
  // A broken file of the repository's own is all its reply is about.
  if (repoRaw === null || !parseConfig(repoRaw).ok) return { repo: repoRaw, org: null };
  try {
    const org = (await context.octokit.config.get({ owner, repo: ".github", path: PATH })) as { files: ConfigFile[] };
    return { repo: repoRaw, org: org.files[0]?.config ?? null };
  } catch (error) {
    return { repo: repoRaw, org: unreadable(error) };
  }
}

/** A file that could not be read as YAML; GitHub's own errors (with a status) are rethrown. */
function unreadable(error: unknown): UnreadableConfig {
  if ((error as { status?: number }).status !== undefined) throw error;
  return new UnreadableConfig((error as Error).message);
}

const ORG_FILE = `the organisation's \`${CONFIG_FILE}\` (in its \`.github\` repository)`;
const orgLimitSchema = z.object({ max_leases_per_holder_in_org: leaseLimitSchema().optional() }).loose();

/** The repository's config, with the organisation's `max_leases_per_holder_in_org` applied when it is stricter. */
export function parseConfigSources(sources: ConfigSources): ConfigResult {
  const result = parseConfig(sources.repo);
  if (!result.ok) return result;
  const { org } = sources;
  if (org instanceof UnreadableConfig) {
    return { ok: false, error: `${ORG_FILE} could not be read as YAML; fix its syntax. Until then commands here change nothing.` };
  }
  if (org === null || org === undefined || typeof org !== "object" || Array.isArray(org)) return result;
  // Only this key of the organisation's file bears on a repository with a file of its own.
  const parsed = orgLimitSchema.safeParse(org);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, error: `${ORG_FILE}: \`max_leases_per_holder_in_org\`: ${issue.message}` };
  }
  const limit = strictest(result.config.maxLeasesPerHolderInOrg, parsed.data.max_leases_per_holder_in_org ?? 0);
  if (limit === result.config.maxLeasesPerHolderInOrg) return result;
  return { ok: true, config: Object.freeze({ ...result.config, maxLeasesPerHolderInOrg: limit }) };
}

/** The stricter of two limits, 0 meaning none. */
function strictest(a: number, b: number): number {
  if (a === 0) return b;
  if (b === 0) return a;
  return Math.min(a, b);
}
