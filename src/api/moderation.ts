/**
 * GitHub's own moderation, applied to the API as GitHub applies it to a
 * comment: a claim, a renewal or a release through the API is refused (403
 * with a `reason`) when the caller could not have commented on the issue.
 *
 * - `locked`: the issue is locked and the caller may not write to the
 *   repository (the issue's `locked`, and the caller's permission asked with
 *   the app's token, as `author_first` asks it);
 * - `interaction_limit`: the repository or its owner limits interactions
 *   (existing users, contributors or collaborators only) and GitHub does not
 *   count the caller in;
 * - `blocked`: GitHub does not let the caller interact with the issue for
 *   another reason: the account is blocked by the repository's owner or its
 *   organisation, or the token may not write to issues (another app's
 *   installation token with only metadata access, a read-only token).
 *
 * Asked of GitHub with the caller's own token, in one GraphQL query: the
 * issue's `viewerCanReact`, which GitHub answers false wherever it would not
 * let the viewer react, and so not comment either (a block, a lock, an
 * interaction limit). That needs no permission of the app's: the org's
 * blocks (`GET /orgs/{org}/blocks/{user}`) would need "blocking users",
 * interaction limits (`GET /repos/{o}/{r}/interaction-limits`)
 * "administration", neither of which app.yml asks for. The repository's
 * `interactionAbility`, when GitHub shows it to the caller, only names the
 * reason.
 *
 * Cached by the token's hash (never the token), the repository and the
 * issue: an answer that lets the caller act for 5 minutes, a refusal for one,
 * so that heartbeats closer together than that cost GitHub nothing. The
 * question itself is github/caller-graphql.ts's.
 */
import type { ModerationGitHub, Seen } from "../github/caller-port.js";
import { isWriter, type Permission } from "../github/github-port.js";
import type { ApiRepo } from "./access.js";
import { type Identity, tokenHash } from "./identity.js";
import { TtlCache } from "./ttl-cache.js";

export type ModerationReason = "locked" | "interaction_limit" | "blocked";

export interface Refusal {
  reason: ModerationReason;
  message: string;
}

export type { Seen };

export interface ModerationOptions {
  /** GitHub, asked with the caller's token. */
  github: ModerationGitHub;
  /** The caller's permission on the repository, asked with the app's token. */
  permission: (repo: ApiRepo, login: string) => Promise<Permission>;
  clock?: () => number;
  /** How long an answer that lets the caller act is kept; default 5 minutes (refusals: a fifth of it). */
  ttlMs?: number;
}

const MAX_ENTRIES = 10_000;
const LIMITED_TO: Record<string, string> = {
  EXISTING_USERS: "accounts older than a day",
  CONTRIBUTORS_ONLY: "its contributors",
  COLLABORATORS_ONLY: "its collaborators",
};

/** The refusal GitHub's answer calls for, or null; `mayWrite` is asked only of a locked issue. Pure but for that question. */
export async function refusalOf(seen: Seen, who: Identity, issue: number, now: number, mayWrite: () => Promise<boolean>): Promise<Refusal | null> {
  if (seen.locked && !(await mayWrite())) {
    const why = seen.lockReason ? ` (${seen.lockReason.toLowerCase().replace(/_/g, " ")})` : "";
    return { reason: "locked", message: `#${issue} is locked${why}: only those who may write to the repository may claim or renew it, as only they may comment.` };
  }
  if (seen.canReact !== false && !seen.forbidden) return null;
  const limit = seen.limit;
  if (seen.canReact === false && limit && limit.limit !== "NO_LIMIT" && (limit.expiresAt === null || limit.expiresAt > now)) {
    const until = limit.expiresAt === null ? "" : ` until ${new Date(limit.expiresAt).toISOString().replace(/\.\d{3}Z$/, "Z")}`;
    return {
      reason: "interaction_limit",
      message: `The repository limits interactions to ${LIMITED_TO[limit.limit] ?? "some accounts"}${until}: GitHub would not let ${who.login} comment, so the API does not let it claim.`,
    };
  }
  if (seen.canReact === false) {
    return {
      reason: "blocked",
      message: `GitHub does not let ${who.login} interact with #${issue}: the account is blocked by the repository's owner, or the token may not write to issues.`,
    };
  }
  return { reason: "blocked", message: `GitHub did not let this token read whether it may act on #${issue}: a token that may not write to issues cannot claim them.` };
}

export class Moderation {
  private readonly o: Required<ModerationOptions>;
  private readonly allowed: TtlCache<true>;
  private readonly refused: TtlCache<Refusal>;
  private readonly writers: TtlCache<boolean>;
  private readonly asking = new Map<string, Promise<Refusal | null>>();
  private readonly askingWriters = new Map<string, Promise<boolean>>();

  constructor(opts: ModerationOptions) {
    this.o = { clock: Date.now, ttlMs: 5 * 60_000, ...opts };
    this.allowed = new TtlCache(this.o.ttlMs, MAX_ENTRIES, this.o.clock);
    this.refused = new TtlCache(Math.ceil(this.o.ttlMs / 5), MAX_ENTRIES, this.o.clock);
    this.writers = new TtlCache(this.o.ttlMs, MAX_ENTRIES, this.o.clock);
  }

  /** Why GitHub would not let the caller comment on the issue, or null when it would. Throws GitHubUnavailable when GitHub does not answer. */
  async refusal(token: string, repo: ApiRepo, issue: number, who: Identity): Promise<Refusal | null> {
    const key = `${tokenHash(token)} ${repo.id}#${issue}`;
    if (this.allowed.get(key)) return null;
    const hit = this.refused.get(key);
    if (hit) return hit;
    let pending = this.asking.get(key);
    if (!pending) {
      const at = this.o.clock();
      pending = this.o.github.moderation(token, { owner: repo.owner, name: repo.name }, issue).then(async (seen) => {
        const mayWrite = () =>
          this.writers.through(`${repo.id} ${who.id}`, async () => isWriter(await this.o.permission(repo, who.login)), this.askingWriters);
        const refusal = await refusalOf(seen, who, issue, this.o.clock(), mayWrite);
        if (refusal) this.refused.set(key, refusal, at);
        else this.allowed.set(key, true, at);
        return refusal;
      });
      this.asking.set(key, pending);
      void pending.finally(() => this.asking.delete(key)).catch(() => undefined);
    }
    return pending;
  }
}
