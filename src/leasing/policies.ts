/**
 * The claim policies of issue 11 that are decided before a claim's ledger
 * transaction (they ask GitHub), and what that transaction is handed to
 * check itself (the limits, race-free, in one place: ledger/leases/claim-limits.ts).
 *
 * - `/claim @user` by someone with write, maintain or admin permission gives
 *   the lease to that user. Costs two reads: the commenter's permission and
 *   the user's account (`GET /users/{login}`), whose numeric id is the
 *   holder's identity. Anyone else gets `forbidden` and nothing changes.
 * - `author_first`: for that long after the issue was opened (its
 *   `created_at`, from the webhook), only its author and people with write
 *   permission may claim it. Costs one read (the commenter's permission),
 *   only inside that window and only for someone who is not the author.
 * - `limits_by_label` and `max_leases_per_holder_in_org` cost no read: the
 *   issue's labels come from the webhook, and the ledger counts.
 */
import { formatDuration } from "../commands/parse-duration.js";
import type { Config } from "../config/schema.js";
import type { ClaimPolicies } from "../ledger/leases/lease-roles.js";
import type { Holder } from "../ledger/leases/lease-types.js";
import { isWriter, type Permission } from "../github/github-port.js";
import { labelKind } from "../github/labels.js";

/** A GitHub account as `GET /users/{login}` gives it. */
export interface Account {
  id: number;
  login: string;
  type: string;
}

export interface ClaimRequest {
  /** The installation serving the repository: the organisation of `max_leases_per_holder_in_org`. */
  installation: number;
  actor: Holder;
  /** The issue as the webhook showed it: `createdAt` in ms, `authorId` the id of who opened it. */
  issue: { labels: readonly string[]; createdAt?: number; authorId?: number };
  /** `/claim @user`: the login to give the lease to. */
  target?: string;
}

export interface ClaimPolicyDeps {
  /** The commenter's permission on the repository, asked of GitHub. */
  permission: (login: string) => Promise<Permission>;
  /** An account by login, asked of GitHub; null when there is none. Without it, `/claim @user` is refused. */
  account?: (login: string) => Promise<Account | null>;
}

export type ClaimDecision =
  /** `assignedBy`: the login of the maintainer who gave the lease to `holder`. */
  | { ok: true; holder: Holder; assignedBy?: string; policies: ClaimPolicies }
  | { ok: false; outcome: "invalid" | "forbidden"; rule: "permission" | "account" | "bots" | "author_first"; reason: string };

/** The refusal of `/claim @user` to someone without write, maintain or admin permission. */
export const GIVE_FORBIDDEN =
  "Only people with write, maintain or admin permission on this repository can give a lease to someone else. Use `/claim` on its own to claim it yourself.";

/** Who holds the lease a `/claim` asks for, and what its transaction must check; or why it is refused. */
export async function decideClaim(req: ClaimRequest, config: Config, now: number, deps: ClaimPolicyDeps): Promise<ClaimDecision> {
  const policies = claimPolicies(req, config);
  if (req.target !== undefined && req.target.toLowerCase() !== req.actor.login.toLowerCase()) {
    // Acting for someone else: ask GitHub, never trust the payload.
    if (!isWriter(await deps.permission(req.actor.login))) return { ok: false, outcome: "forbidden", rule: "permission", reason: GIVE_FORBIDDEN };
    const account = deps.account ? await deps.account(req.target) : null;
    if (account === null) {
      return { ok: false, outcome: "invalid", rule: "account", reason: "GitHub has no account with that login, so the lease was given to nobody." };
    }
    if (!config.bots && account.type === "Bot") {
      return { ok: false, outcome: "forbidden", rule: "bots", reason: "Bots may not hold leases in this repository (`bots: false` in `.github/issue-leases.yml`)." };
    }
    return { ok: true, holder: { id: account.id, login: account.login }, assignedBy: req.actor.login, policies };
  }
  const { createdAt, authorId } = req.issue;
  if (config.authorFirst !== null && createdAt !== undefined && now < createdAt + config.authorFirst && req.actor.id !== authorId) {
    if (!isWriter(await deps.permission(req.actor.login))) {
      return {
        ok: false,
        outcome: "forbidden",
        rule: "author_first",
        reason:
          `For ${formatDuration(config.authorFirst)} after it was opened, until ${utc(createdAt + config.authorFirst)}, only this issue's ` +
          "author and people with write, maintain or admin permission can claim it (`author_first`). Try again then.",
      };
    }
  }
  return { ok: true, holder: req.actor, policies };
}

/** What the claim's transaction checks: the issue's own labels (the app's are not the issue's), the label limits, the organisation's. */
function claimPolicies(req: ClaimRequest, config: Config): ClaimPolicies {
  const labels = req.issue.labels.filter((name) => labelKind(config.labels, name) === null);
  return {
    labels,
    ...(config.limitsByLabel.length > 0 ? { byLabel: config.limitsByLabel } : {}),
    ...(config.maxLeasesPerHolderInOrg > 0 ? { org: { installation: req.installation, limit: config.maxLeasesPerHolderInOrg } } : {}),
  };
}

function utc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}
