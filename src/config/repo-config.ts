/**
 * Reading a repository's `.github/issue-leases.yml` (and its organisation's
 * limits: sources.ts) through its cache, for a comment (the webhook's
 * context) and for an API call (no webhook context: the installation's
 * Octokit and the repository's name), with the same reads and the same merge,
 * so that whichever path loads a repository's config first, both get the same.
 */
import type { Context, ProbotOctokit } from "probot";
import type { ConfigCache } from "./cache.js";
import type { ConfigResult } from "./config.js";
import { parseConfigSources, readConfigSources } from "./sources.js";

/** Where the config is read from: an Octokit of the installation and the repository. */
export type ConfigSource = Pick<Context, "octokit" | "repo">;

/** The repository's config from the cache, or read from `source`; GitHub's errors are thrown and not cached. */
export function loadConfig(cache: ConfigCache, repoId: number, source: ConfigSource | (() => Promise<ConfigSource>)): Promise<ConfigResult> {
  return cache.get(
    repoId,
    async () => readConfigSources(typeof source === "function" ? await source() : source, cache.targets),
    (sources) => parseConfigSources(sources, cache.targets),
  );
}

/** A config source without a webhook's context. */
export function sourceOf(octokit: InstanceType<typeof ProbotOctokit>, owner: string, repo: string): ConfigSource {
  return { octokit, repo: (<T>(object?: T) => ({ owner, repo, ...object })) as Context["repo"] };
}
