/**
 * Parsed configs by repository id, so a busy repository does not fetch
 * `.github/issue-leases.yml` on every comment.
 *
 * A push to the default branch that touches the file invalidates the entry
 * (see `pushTouchesConfig`). The time-to-live is a safety net for what we
 * cannot see: pushes to an org-level `.github` repository of another
 * installation, and files pulled in with `_extends`.
 */

import { DEFAULT_TARGET_POLICY, type TargetPolicy } from "../events/target-guard.js";
import { CONFIG_FILE, parseConfig, type ConfigResult } from "./config.js";

export interface ConfigCacheOptions {
  /** How long a loaded config is trusted; default 10 minutes. */
  ttlMs?: number;
  /** Entries kept; the least recently used go first. Default 10,000. */
  maxEntries?: number;
  /** The clock, injected for tests. */
  now?: () => number;
  /** Where outgoing webhooks may go (the operator's EVENTS_WEBHOOK_ALLOW_PRIVATE): configs are parsed by it. */
  targets?: TargetPolicy;
}

interface Entry {
  result: ConfigResult;
  loadedAt: number;
}

export interface PushPayload {
  ref: string;
  repository: { name?: string; default_branch: string };
  commits?: Array<{ added?: string[]; modified?: string[]; removed?: string[] }>;
}

// GitHub lists at most 20 commits in a push payload; beyond that we cannot tell.
const PUSH_COMMITS_LISTED = 20;

export class ConfigCache {
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  readonly targets: TargetPolicy;
  // A Map iterates in insertion order; re-inserting on use makes the first key the least recently used.
  private readonly entries = new Map<number, Entry>();
  private readonly loading = new Map<number, Promise<ConfigResult>>();

  constructor(opts: ConfigCacheOptions = {}) {
    this.ttlMs = opts.ttlMs ?? 10 * 60_000;
    this.maxEntries = Math.max(1, opts.maxEntries ?? 10_000);
    this.now = opts.now ?? Date.now;
    this.targets = opts.targets ?? DEFAULT_TARGET_POLICY;
  }

  /**
   * The cached result for the repository if fresh; otherwise calls `load()`
   * once (concurrent callers for the same repository share the load) and
   * caches what it returns. `load()` returns the parsed YAML or null when
   * there is no file, and `parse` validates it (default: `parseConfig`, by `targets`). If
   * it throws, nothing is cached and the error is rethrown.
   */
  get<Raw = unknown>(repoId: number, load: () => Promise<Raw>, parse: (raw: Raw) => ConfigResult = (raw) => parseConfig(raw, undefined, this.targets)): Promise<ConfigResult> {
    const entry = this.entries.get(repoId);
    if (entry !== undefined) {
      if (this.now() - entry.loadedAt < this.ttlMs) {
        this.entries.delete(repoId);
        this.entries.set(repoId, entry);
        return Promise.resolve(entry.result);
      }
      this.entries.delete(repoId);
    }

    const inFlight = this.loading.get(repoId);
    if (inFlight !== undefined) return inFlight;

    const startedAt = this.now();
    // Callbacks run after `promise` is assigned; `.then(load)` also turns a synchronous throw into a rejection.
    const promise: Promise<ConfigResult> = Promise.resolve()
      .then(load)
      .then(
        (raw) => {
          const result = parse(raw);
          // Not ours any more when invalidate ran meanwhile: the load may have read the old file.
          if (this.loading.get(repoId) === promise) {
            this.loading.delete(repoId);
            this.store(repoId, result, startedAt);
          }
          return result;
        },
        (error: unknown) => {
          if (this.loading.get(repoId) === promise) this.loading.delete(repoId);
          throw error;
        },
      );
    this.loading.set(repoId, promise);
    return promise;
  }

  /** Forget the repository's config; the next `get` loads it again. */
  invalidate(repoId: number): void {
    this.entries.delete(repoId);
    // A load in flight still answers its callers, but is no longer cached.
    this.loading.delete(repoId);
  }

  /**
   * True when a push may have changed the config: a push to the default
   * branch whose commits touch `.github/issue-leases.yml`, or whose commits
   * are not all listed, or any push to the default branch of a repository
   * named `.github` (it holds organization-wide configs).
   */
  static pushTouchesConfig(payload: PushPayload): boolean {
    if (payload.ref !== `refs/heads/${payload.repository.default_branch}`) return false;
    if (payload.repository.name === ".github") return true;
    const commits = payload.commits;
    if (commits === undefined || commits.length > PUSH_COMMITS_LISTED) return true;
    return commits.some((commit) =>
      [commit.added, commit.modified, commit.removed].some((files) => files?.includes(CONFIG_FILE) ?? false),
    );
  }

  private store(repoId: number, result: ConfigResult, loadedAt: number): void {
    this.entries.delete(repoId);
    this.entries.set(repoId, { result, loadedAt });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }
}
