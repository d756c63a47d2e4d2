/**
 * Reading a repository's `.github/issue-leases.yml` through its cache, for
 * a comment (Probot's `context.config`) and for an API call (no webhook
 * context: the installation's Octokit, merged exactly as `context.config`
 * merges, so that whichever path loads a repository's config first, both
 * get the same).
 */
import merge from "deepmerge";
import type { ProbotOctokit } from "probot";
import type { ConfigCache } from "./config-cache.js";
import { CONFIG_FILE, type ConfigResult, UnreadableConfig } from "./config.js";

/** The repository's config from the cache, or read with `read` (the parsed YAML, or null when there is no file). */
export async function loadConfig(cache: ConfigCache, repoId: number, read: () => Promise<unknown>): Promise<ConfigResult> {
  return cache.get(repoId, async () => {
    try {
      return await read();
    } catch (error) {
      const status = (error as { status?: number }).status;
      if (status !== undefined) throw error; // GitHub had a problem: not a config error, not cached
      return new UnreadableConfig((error as Error).message);
    }
  });
}

/** What `context.config(CONFIG_NAME)` answers, without a webhook's context: the merged file, or null when there is none. */
export async function readRepoConfig(octokit: InstanceType<typeof ProbotOctokit>, owner: string, repo: string): Promise<unknown> {
  const { config, files } = await octokit.config.get({
    owner,
    repo,
    path: CONFIG_FILE,
    defaults: (configs) => merge.all<Record<string, unknown>>([{}, ...configs]),
  });
  return files.some((file) => file.config !== null) ? config : null;
}
