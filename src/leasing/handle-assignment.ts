/**
 * Assignment as a claim (`assignment: claims`): many teams assign people,
 * and GitHub's coding agent, in the issue's sidebar rather than by
 * commenting. An `issues.assigned` by someone with write, maintain or admin
 * permission (asked of GitHub) is read as their `/claim @assignee`, through
 * the same LeaseCommand and ONE ledger transaction; an `issues.unassigned`
 * of the holder, by the holder or by such a person, as a release.
 *
 * Nothing here changes an assignment on GitHub that the app did not make: a
 * refused assignment stays, and so does an assignment while someone else
 * holds the lease. Apps' and bots' own assignments (this app's, when it
 * assigns a holder) never get here (issue-event-routes.ts).
 */
import type { ConfigResult } from "../config/config.js";
import { decide } from "../ledger/leases/decide.js";
import type { Holder } from "../ledger/leases/lease-types.js";
import type { LeaseBook, LeaseReads } from "../ledger/leases/lease-roles.js";
import { isWriter, type Permission } from "../github/github-port.js";
import type { LeaseView, Op, Outcome, Reply } from "../commands/reply.js";
import { LeaseCommand, type LeaseDeps } from "./lease-command.js";
import type { LeaseTarget } from "./lease-target.js";
import { applyDecision, commandOptions, releasedHandoff, replyEffect } from "./lease-decision.js";
import type { LeaseResult } from "./lease-result.js";

/** An `issues.assigned` or `issues.unassigned`, reduced to what a lease needs. */
export interface AssignmentEvent {
  delivery: string;
  installation: number;
  repo: { id: number; owner: string; name: string };
  /** The issue as the event showed it: its labels, state, and when and by whom it was opened. */
  issue: { number: number; labels: string[]; state?: string; createdAt?: number; authorId?: number };
  /** Who assigned or unassigned: a person (events sent by apps and bots are not read). */
  sender: Holder;
  /** Who was assigned or unassigned, as GitHub's signed payload names them: the account, with its type ("Bot" for the coding agent). */
  assignee: { id: number; login: string; type: string };
  /** When GitHub says it happened (the issue's `updated_at`), ms: an unassignment from before the live tenure ends nothing. */
  at?: number;
}

export interface AssignmentDeps {
  ledger: LeaseBook & LeaseReads;
  now: number;
  /** The repository's config: read first, as `assignment` decides whether anything happens. */
  config: () => Promise<ConfigResult>;
  /** A login's permission on the repository, asked of GitHub (never read from the payload). */
  permission: (login: string) => Promise<Permission>;
}

export interface AssignmentHandled {
  op: Op;
  outcome: Outcome;
  duplicate: boolean;
}

/** The refusal of an assignment by someone without write, maintain or admin permission. */
export const ASSIGN_FORBIDDEN =
  "Only an assignment by someone with write, maintain or admin permission on this repository gives a lease " +
  "(`assignment: claims`). The assignment stays as it is, without a lease; the assignee can `/claim` the issue.";

/** The refusal of an unassignment of the holder by someone who may not end their lease. */
export const UNASSIGN_FORBIDDEN =
  "Only the holder, or someone with write, maintain or admin permission on this repository, can end a lease " +
  "(by unassigning the holder, or with `/release @holder`). The lease stands; the labels show it.";

/** What is quoted as the command: the act in the sidebar, as GitHub's timeline says it (a login: no mention, no markdown). */
const act = (ev: AssignmentEvent, assigned: boolean) => `${assigned ? "assigned" : "unassigned"} ${ev.assignee.login}`;

function replyFor(ev: AssignmentEvent, op: Op, assigned: boolean, now: number) {
  return (outcome: Outcome, lease: LeaseView | null, extra: Partial<Reply> = {}): Reply => ({
    op,
    outcome,
    issue: ev.issue.number,
    at: now,
    command: act(ev, assigned),
    actor: ev.sender.login,
    lease,
    ignored: 0,
    // Someone else holds it: the app does not unassign whom it did not assign.
    ...(outcome === "held" ? { reason: `**${ev.assignee.login}** stays assigned on GitHub, without a lease.` } : {}),
    ...extra,
  });
}

/** A permission asked of GitHub at most once per event, whoever asks (the handler, then the claim's policies). */
function askedOnce(ask: (login: string) => Promise<Permission>): (login: string) => Promise<Permission> {
  const answers = new Map<string, Promise<Permission>>();
  return (login) => {
    const key = login.toLowerCase();
    let answer = answers.get(key);
    if (!answer) answers.set(key, (answer = ask(login)));
    return answer;
  };
}

/**
 * The command an assignment event stands for, its sender the actor: an issues
 * event carries no `author_association`, so GitHub's answer on permission
 * (`writer`) stands for it. `shown`: what GitHub already did to the assignee.
 */
function commandOf(ev: AssignmentEvent, assigned: boolean, writer: boolean, reply: LeaseTarget["reply"], config: ConfigResult, deps: LeaseDeps): LeaseCommand {
  const target: LeaseTarget = {
    delivery: ev.delivery,
    installation: ev.installation,
    repo: ev.repo,
    issue: ev.issue,
    actor: { ...ev.sender, type: "User", association: "NONE", writer },
    reply,
    shown: { login: ev.assignee.login, assigned },
    // An assignment on a held issue stays only on GitHub (the reply says so): it takes no place in line.
    wait: false,
  };
  return new LeaseCommand(target, config, deps);
}

const done = (op: Op, r: LeaseResult | { outcome: Outcome; duplicate: boolean }): AssignmentHandled => ({ op, outcome: r.outcome, duplicate: r.duplicate });

/**
 * Someone was assigned: with `assignment: claims`, the sender's `/claim
 * @assignee` (their own `/claim` when they assigned themselves). Nothing
 * happens, and GitHub is asked nothing beyond the config, on a closed
 * issue, when the config says `ignore` or is broken (its error is for
 * commands to report), or when the assignee already holds the live lease
 * (the sidebar shows what the ledger says). Returns null when nothing happened.
 */
export async function handleAssigned(ev: AssignmentEvent, deps: AssignmentDeps): Promise<AssignmentHandled | null> {
  if (ev.issue.state === "closed") return null;
  const config = await deps.config();
  if (!config.ok || config.config.assignment !== "claims") return null;
  const { ledger, now } = deps;
  const key = { repoId: ev.repo.id, repo: `${ev.repo.owner}/${ev.repo.name}`, issue: ev.issue.number };
  const live = await ledger.current(key, now);
  if (live && live.holder.id === ev.assignee.id && live.holder.instance === undefined) return null;

  const permission = askedOnce(deps.permission);
  const writer = isWriter(await permission(ev.sender.login));
  const command = commandOf(ev, true, writer, replyFor(ev, "claim", true, now), config, {
    ledger,
    now,
    permission,
    // The assignee's account is the payload's (GitHub's own, signed): no `GET /users/{login}` as `/claim @user` needs.
    account: async (login) => (login.toLowerCase() === ev.assignee.login.toLowerCase() ? ev.assignee : null),
  });
  if (!writer) return done("claim", await command.refuse("forbidden", "permission", ASSIGN_FORBIDDEN));
  return done("claim", await command.claim(null, ev.assignee.login));
}

/**
 * Someone was unassigned: with `assignment: claims`, when they hold the live
 * lease and the holder or someone with write, maintain or admin permission
 * unassigned them, the lease ends (as `/release`, or `/release @holder`).
 * Anyone else is told the lease stands. Unassigning someone who holds no
 * lease does nothing, and asks GitHub nothing.
 */
export async function handleUnassigned(ev: AssignmentEvent, deps: AssignmentDeps): Promise<AssignmentHandled | null> {
  const { ledger, now } = deps;
  const key = { repoId: ev.repo.id, repo: `${ev.repo.owner}/${ev.repo.name}`, issue: ev.issue.number };
  const live = await ledger.current(key, now);
  if (!live || live.holder.id !== ev.assignee.id) return null;
  // Unassigned before this tenure began (a late or redelivered event): not about this lease.
  if (ev.at !== undefined && decide.eventBeside(ev.at, live.acquiredAt) === "before") return null;
  const config = await deps.config();
  if (!config.ok || config.config.assignment !== "claims") return null;

  const isHolder = ev.sender.id === live.holder.id;
  const writer = !isHolder && isWriter(await deps.permission(ev.sender.login));
  const reply = replyFor(ev, "release", false, now);
  const command = commandOf(ev, false, writer, reply, config, { ledger, now });
  if (!isHolder && !writer) return done("release", await command.refuse("forbidden", "permission", UNASSIGN_FORBIDDEN));
  const ended = reply("released", null, { mentionHolder: !isHolder, reason: "Unassigning the holder ended the lease (`assignment: claims`)." });
  const effects = { "released.handoff": releasedHandoff(command.deciding, config.config), released: replyEffect(command.deciding, ended, true, config.config) };
  const applied = await applyDecision(ledger, key, now, {
    op: "forceRelease",
    actor: ev.sender,
    // The tenure that was unassigned, and when: one that changed hands since is not ended.
    opts: { ifToken: live.token, ...(ev.at !== undefined ? { eventAt: ev.at } : {}), ...commandOptions(command.deciding, effects) },
  });
  return done("release", { outcome: applied.outcome === "released" ? "released" : "not_holder", duplicate: applied.duplicate });
}
