/**
 * One claim, renewal or release through the API: what GitHub's moderation
 * says of the caller on the issue, the issue's state and labels, the
 * caller's association when a rule needs it, then the very LeaseCommand a
 * comment runs. Shared by the routes of one issue (routes.ts) and `next`
 * (next.ts), which walks the ready list and claims each issue this way.
 */
import { LeaseCommand } from "../leasing/lease-command.js";
import type { ReplyFor } from "../leasing/lease-target.js";
import type { LeaseResult } from "../leasing/lease-result.js";
import type { ApiRepo, IssueState } from "./access.js";
import type { ApiDeps } from "./api-deps.js";
import { type Answer, errorAnswer, type IssueAbout, NOT_FOUND } from "./answers.js";
import type { Identity } from "./identity.js";
import type { IssueRef } from "./requests.js";

/**
 * A bot's answer for a repository its token does not reach: GitHub would not
 * let that token write there either ("blocked", as moderation.ts names it),
 * and its account is every installation's of its app, so the lease there is
 * another installation's.
 */
export function outsideScope(who: Identity, full: string): Answer {
  const message =
    `This installation token does not reach ${full}: ${who.login} is the account of every installation of its app, ` +
    "so only a token of the installation that covers the repository (for GitHub Actions, that repository's own GITHUB_TOKEN) may act on its leases.";
  return errorAnswer(403, "forbidden", message, { reason: "blocked" });
}

/** An issue's page on GitHub, under the web address the app's GitHub has. */
function aboutOf(deps: Pick<ApiDeps, "web">, repo: ApiRepo, issue: number, title: string | undefined): IssueAbout {
  return { ...(title !== undefined ? { title } : {}), ...(deps.web !== undefined ? { url: `${deps.web}/${repo.owner}/${repo.name}/issues/${issue}` } : {}) };
}

/**
 * What a replayed claim (a retry with the same Idempotency-Key) says of the issue, as its first answer did: the title
 * read again (without it when GitHub does not answer: the replay still stands), and the page.
 */
export async function replayAbout(deps: Pick<ApiDeps, "web" | "access">, token: string, repo: ApiRepo, issue: number): Promise<IssueAbout> {
  const seen = await deps.access.issue(token, repo, issue).catch(() => null);
  return aboutOf(deps, repo, issue, seen?.title);
}

/** A command's result, and for a claim what GitHub (or the inventory) showed of the issue. */
export type CommandResult = LeaseResult & { about?: IssueAbout };

export async function runCommand(
  deps: ApiDeps,
  r: {
    token: string; repo: ApiRepo; ref: IssueRef; who: Identity; op: "claim" | "renew" | "release"; ttl: number | null; instance?: string; delivery?: string;
    now: number;
    /** The issue as the inventory knows it (`next`): GitHub is not asked for it again. */
    known?: IssueState;
    /** Record `delivery` only with a lease acquired (`next`). */
    recordAcquiredOnly?: boolean;
    /** Wait in line when the issue is held (`?wait=true`); `next` never does. */
    wait?: boolean;
    /** The caller's line for the people reading the issue, shown in the reply to a claim or release that changes the lease. */
    note?: string;
  },
): Promise<CommandResult | Answer> {
  const { repo, ref, who, op, now } = r;
  const config = await deps.config(repo);
  let issue: { number: number; labels: string[]; state?: string; createdAt?: number; authorId?: number } = { number: ref.issue, labels: [] };
  let about: IssueAbout | undefined;
  // What a comment could not do, the API does not do either: a release too, since ending a lease (or leaving the line)
  // is acting on the issue, and a caller GitHub shuts out of it must not do that through the app.
  const moderated = deps.moderation.refusal(r.token, repo, ref.issue, who);
  if (op === "claim") {
    // The issue must exist (for the caller), be open, and keep the labels it had: a label it already has is not the app's to take off.
    const [seen] = await Promise.all([r.known ?? deps.access.issue(r.token, repo, ref.issue), moderated.catch(() => null)]);
    if (!seen) return NOT_FOUND;
    const { title, ...state } = seen;
    issue = { number: ref.issue, ...state };
    about = aboutOf(deps, repo, ref.issue, title);
  }
  const refusal = await moderated;
  if (refusal) return errorAnswer(403, "forbidden", refusal.message, { reason: refusal.reason });
  // Who may claim, and whose replies are limited, by GitHub's `author_association`: asked only when a rule needs it.
  const needed = config.ok && (config.config.maxRepliesPerHour > 0 || (op === "claim" && config.config.claimers !== "anyone")) && op !== "renew";
  const association = needed ? await deps.access.association(repo, who) : "NONE";
  const reply: ReplyFor = (outcome, lease, extra = {}) => {
    // Asked only of a tenure that begins or ends (changesOnly), or a claim carried on: that alone posts nothing.
    const changed = outcome === "acquired" ? extra.newTenure !== false : outcome === "released";
    if (!changed) return null;
    const said = r.note !== undefined ? { note: r.note } : {};
    return { op: outcome === "acquired" ? "claim" : "release", outcome, issue: ref.issue, at: now, command: null, actor: who.login, lease, ignored: 0, via: "api", ...said, ...extra };
  };
  // Before the command: its lease event is written in its transaction, and the event stream shows an event to anyone only
  // once the ledger knows its repository is public (events/public-repos.ts).
  await deps.rememberRepo(repo.id, `${repo.owner}/${repo.name}`, repo.installation, repo.private);
  const command = new LeaseCommand(
    {
      ...(r.delivery !== undefined ? { delivery: r.delivery } : {}),
      ...(r.recordAcquiredOnly ? { recordAcquiredOnly: true } : {}),
      installation: repo.installation,
      repo: { id: repo.id, owner: repo.owner, name: repo.name },
      issue,
      actor: { id: who.id, login: who.login, type: who.type, association, ...(r.instance !== undefined ? { instance: r.instance } : {}) },
      reply,
      changesOnly: true,
      wait: r.wait === true,
      cause: "api",
    },
    config,
    { ledger: deps.ledger, now, permission: (login) => deps.permission(repo, login) },
  );
  const result = op === "claim" ? await command.claim(r.ttl) : op === "renew" ? await command.renew(r.ttl) : await command.release();
  // Only a new tenure or the end of one wrote effects (changesOnly): a heartbeat wakes no drainer.
  const changed =
    (result.outcome === "acquired" && result.newTenure) || (result.outcome === "released" && (result.lease !== null || result.handoff !== undefined));
  if (changed && !result.duplicate) deps.kick();
  return about === undefined ? result : { ...result, about };
}
