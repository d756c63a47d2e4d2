/**
 * What an installation token reaches: its part of who the caller is.
 *
 * An installation token's account is its app's bot, one account across all
 * of GitHub: `github-actions[bot]` (41898282) is every workflow's
 * `GITHUB_TOKEN` in every repository of every owner, and every installation
 * of one GitHub App is that app's one bot. So for a bot, the account alone
 * names nobody; what the token is scoped to does. GitHub tells it:
 * `GET /installation/repositories` answers only for installation tokens,
 * with the repositories the token reaches (no installation id). One app has
 * at most one installation per account, and a `GITHUB_TOKEN` reaches only its
 * own repository, so "the token reaches repository R" is the same as "the
 * token belongs to the installation that covers R": acting on a lease of R
 * asks the first (identity.ts `reaches`).
 *
 * The repositories are read a page of 100 at a time, up to MAX_SCOPE_PAGES
 * (the first alone, then the rest at once); past that, the rest count as not
 * reached. The token is sent to GitHub, never kept: the caller (identity.ts)
 * caches what this answers by the token's hash.
 */
import { createHash } from "node:crypto";
import { REACH_PER_PAGE as PER_PAGE, type ReachGitHub } from "../github/caller-port.js";

export interface TokenScope {
  /** Ids of the repositories the token reaches. */
  repos: ReadonlySet<number>;
  /**
   * A hash of those repositories' owners and ids: what the token's rate limit
   * and stream slots are counted under, so that one installation's use leaves
   * another's untouched.
   */
  key: string;
  /** The installation reaches more than MAX_SCOPE_PAGES pages list: the rest count as not reached. */
  partial: boolean;
}

/** 4,000 repositories: an installation on all of a bigger owner's reaches only those GitHub lists first. */
export const MAX_SCOPE_PAGES = 40;

/**
 * The repositories an installation token reaches, or null when GitHub
 * refuses the token (401). A token that is not an installation's (GitHub
 * answers 403 or 404) reaches none. Throws GitHubUnavailable when GitHub does
 * not answer, or answers with its rate limit.
 */
export async function tokenScope(github: ReachGitHub, token: string): Promise<TokenScope | null> {
  const first = await github.reachedPage(token, 1);
  if (first === "refused") return null;
  if (first === "none") return scopeOf([], false);
  const pages = Math.min(MAX_SCOPE_PAGES, Math.ceil(first.total / PER_PAGE));
  const rest = await Promise.all(Array.from({ length: Math.max(0, pages - 1) }, (_, i) => github.reachedPage(token, i + 2)));
  const repos = [...first.repos];
  for (const page of rest) {
    // The token went bad, or stopped being an installation's, between two pages: what it reached then is unknown.
    if (page === "refused") return null;
    if (page === "none") return scopeOf([], false);
    repos.push(...page.repos);
  }
  return scopeOf(repos, first.total > pages * PER_PAGE);
}

function scopeOf(repos: Array<{ id: number; owner: number }>, partial: boolean): TokenScope {
  const ids = [...new Set(repos.map((r) => r.id))].sort((a, b) => a - b);
  const owners = [...new Set(repos.map((r) => r.owner))].sort((a, b) => a - b);
  const key = createHash("sha256").update(JSON.stringify({ owners, repos: ids })).digest("hex").slice(0, 32);
  return { repos: new Set(ids), key, partial };
}
