/**
 * Who a bearer token on GET /api/v1/leases is, and what it may see: the
 * account, asked of GitHub through the API's own identity code (GraphQL
 * `viewer`, which answers for user tokens, personal access tokens and
 * installation tokens; cached by the token's hash, never the token), and
 * the private repositories it can access:
 *
 * - a GitHub App user token: those of the installations it can access
 *   (`GET /user/installations`), as for a signed-in user;
 * - an installation token: its installation's (`GET /installation/repositories`);
 * - a personal access token: none (GitHub lists no installations for it):
 *   public repositories only.
 *
 * Each installation's private repositories count only when the token may
 * read their issues (github/github-user.ts, readsIssues): any app installed on an
 * organisation lists its repositories, with no more than metadata access,
 * and must not learn from the board what it could not read on GitHub.
 *
 * The list is cached for a minute by the token's hash, as the API caches
 * which repositories a token sees. Look-ups of tokens not known yet go
 * through the client address's gate (`lookups`, api/lookup-gate.ts), as on
 * the API: bounded at once, and limited by how many GitHub refused.
 */
import { Identities, tokenHash } from "../api/identity.js";
import type { LookupGate } from "../api/lookup-gate.js";
import { TtlCache } from "../api/ttl-cache.js";
import { callerGitHub } from "../github/caller-port.js";
import { githubUrls } from "../github/github-urls.js";
import { GitHubUserError, type PrivateRepos, type UserGitHub } from "../github/github-user.js";
import type { BearerViewer } from "./viewer.js";

const ACCESS_TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

/** GitHub refused the listing (a 4xx): this kind of token does not list them. Anything else (5xx, network) is thrown. */
async function unlessRefused(list: () => Promise<PrivateRepos>): Promise<PrivateRepos | null> {
  try {
    return await list();
  } catch (error) {
    if (error instanceof GitHubUserError && error.refused) return null;
    throw error;
  }
}

/** What a bearer's token is asked of GitHub beside who it is: the private repositories it can access, and whether it reads their issues. */
export type BearerGitHub = Pick<UserGitHub, "privateReposOfUser" | "privateReposOfInstallation" | "readsIssues">;

export function bearerViewer(o: { api: string; clock: () => number; github: BearerGitHub; lookups?: LookupGate }): BearerViewer {
  const identities = new Identities({ github: callerGitHub(githubUrls(o.api)), clock: o.clock, ...(o.lookups ? { lookups: o.lookups } : {}) });
  const seen = new TtlCache<PrivateRepos>(ACCESS_TTL_MS, MAX_ENTRIES, o.clock);
  const loading = new Map<string, Promise<PrivateRepos>>();
  const privateRepos = async (token: string): Promise<PrivateRepos> => {
    const check = (repos: Array<{ full: string }>) => o.github.readsIssues(token, repos);
    return (
      (await unlessRefused(() => o.github.privateReposOfUser(token, check))) ??
      (await unlessRefused(() => o.github.privateReposOfInstallation(token, check))) ?? { repos: [], partial: false }
    );
  };
  return async (token, address) => {
    const who = await identities.who(token, address);
    if (!who) return null;
    const access = await seen.through(tokenHash(token), () => privateRepos(token), loading);
    return { id: who.id, login: who.login, visible: access.repos, partial: access.partial, ...(who.scope ? { scope: who.scope.key } : {}) };
  };
}
