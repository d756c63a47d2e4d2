/**
 * One command, start to commit: parse, check what GitHub must be asked
 * (config, permission), then ONE ledger transaction that decides the outcome,
 * records the delivery and writes the reply and label effects to the outbox.
 * Applying them to GitHub is the drainer's job; nothing here posts.
 */
import { type Command, isParseError, type ParseError, parseCommand } from "./commands/parse-command.js";
import { DURATION_FORMS, formatDuration } from "./commands/parse-duration.js";
import { type Config, type ConfigResult, DEFAULT_CONFIG } from "./config.js";
import type {
  AcquireResult,
  Applied,
  ForceReleaseResult,
  Holder,
  IssueKey,
  Ledger,
  LedgerResult,
  NewEffect,
  NoteResult,
  ReleaseResult,
  RenewResult,
  ReplyBudget,
} from "./ledger/types.js";
import { REFLECT, type ReflectPayload } from "./reflect/drainer.js";
import type { Permission } from "./reflect/github-port.js";
import { type LeaseView, leaseView, type Op, type Outcome, type Reply, type TenureView } from "./reflect/render.js";
import { type Account, decideClaim, limitReason } from "./policies.js";
import { repliesPerHour, withinBudget } from "./reply-limit.js";
import { carriesExemptLabel } from "./work-policy.js";

/** A comment, reduced to what a command needs. */
export interface CommentEvent {
  delivery: string;
  installation: number;
  repo: { id: number; owner: string; name: string };
  /** `state` as the webhook saw it: "open" or "closed"; `createdAt` (ms) and `authorId`: when and by whom it was opened. */
  issue: { number: number; labels: string[]; state?: string; createdAt?: number; authorId?: number };
  author: { id: number; login: string; type: string; association: string };
  body: string;
  /** The comment's id: the reply's marker names it. */
  commentId?: number;
  /** For an edit: the body before it. */
  previousBody?: string | null;
}

export interface CommandDeps {
  ledger: Ledger;
  now: number;
  /** The repository's config, loaded only when the comment holds a command. */
  config: () => Promise<ConfigResult>;
  /** The commenter's permission on the repository (asked of GitHub only for acts on someone else's lease). */
  permission: (login: string) => Promise<Permission>;
  /** An account by login, asked of GitHub (for `/claim @user`); null when there is none. */
  account?: (login: string) => Promise<Account | null>;
}

export interface Handled {
  op: Op;
  outcome: Outcome;
  duplicate: boolean;
}

const WRITERS: Permission[] = ["admin", "maintain", "write"];

/** Whether an edit added the command (or changed it): an edit elsewhere in a comment does not run it again. */
function editAddedCommand(now: Command | ParseError, previousBody: string | null | undefined): boolean {
  if (previousBody === undefined) return true;
  const before = parseCommand(previousBody ?? "");
  return before === null || before.line.toLowerCase() !== now.line.toLowerCase();
}

function opOf(kind: Command["kind"] | ParseError["command"]): Op {
  return kind === "lease" ? "status" : kind;
}

/** Runs the comment's command, if it has one. Returns null when there is nothing to do. */
export async function handleComment(ev: CommentEvent, deps: CommandDeps): Promise<Handled | null> {
  const parsed = parseCommand(ev.body);
  if (parsed === null || !editAddedCommand(parsed, ev.previousBody)) return null;

  const { ledger, now } = deps;
  const key: IssueKey = { repoId: ev.repo.id, repo: `${ev.repo.owner}/${ev.repo.name}`, issue: ev.issue.number };
  const actor: Holder = { id: ev.author.id, login: ev.author.login };
  const op = opOf(isParseError(parsed) ? parsed.command : parsed.kind);

  const reply = (outcome: Outcome, lease: LeaseView | null, extra: Partial<Reply> = {}): Reply => ({
    op,
    outcome,
    issue: ev.issue.number,
    at: now,
    command: parsed.line,
    actor: actor.login,
    lease,
    ignored: parsed.ignored,
    ...(ev.commentId !== undefined ? { comment: ev.commentId } : {}),
    ...extra,
  });
  const effect = (r: Reply, reconcile: boolean, config?: Config): NewEffect[] => {
    const payload: ReflectPayload = {
      owner: ev.repo.owner,
      repo: ev.repo.name,
      reconcile,
      reply: r,
      ...(config ? { labels: config.labels, assign: config.assign, snapshot: ev.issue.labels } : {}),
    };
    return [{ installation: ev.installation, kind: REFLECT, payload }];
  };
  const configResult = await deps.config();
  // A broken config still limits replies, by the default: its error reply is no way around the limit.
  const limit = repliesPerHour(ev.author.association, configResult.ok ? configResult.config : DEFAULT_CONFIG);
  /** Every ledger call's options: the delivery, and effects held to the author's reply budget. */
  const limited = <R>(effects: (res: R) => NewEffect[]) => ({
    delivery: ev.delivery,
    repliesPerHour: limit,
    effects: (res: R, budget: ReplyBudget) => withinBudget(effects(res), budget, limit),
  });
  /** A command that changes no lease: its reply, recorded with the delivery. */
  const refuse = async (outcome: "invalid" | "forbidden" | "not_holder" | "status", reason?: string, extra: Partial<Reply> = {}) => {
    const applied = await ledger.note(key, actor, now, {
      outcome,
      ...limited((res: NoteResult) => effect(reply(outcome, leaseView(res.lease), { reason, ...extra }), false)),
    });
    return { op, outcome, duplicate: applied.duplicate };
  };
  const done = (outcome: Outcome, applied: Applied<LedgerResult>): Handled => ({ op, outcome, duplicate: applied.duplicate });

  if (!configResult.ok) return refuse("invalid", configResult.error);
  const config = configResult.config;
  if (isParseError(parsed)) return refuse("invalid", parsed.message);

  switch (parsed.kind) {
    case "claim":
    case "renew": {
      const ttl = parsed.ttl ?? config.defaultTtl;
      if (parsed.ttl !== null && (parsed.ttl < config.minTtl || parsed.ttl > config.maxTtl)) {
        return refuse(
          "invalid",
          `A lease in this repository lasts from ${formatDuration(config.minTtl)} to ${formatDuration(config.maxTtl)}. ` +
            `Give a duration in that range, such as ${DURATION_FORMS}, or none for the default` +
            `${config.defaultTtl === null ? " (no expiry)" : ` (${formatDuration(config.defaultTtl)})`}.`,
        );
      }
      // A lease no longer than the reminder window would be reminded at the next
      // sweep, right after the reply that already says when it ends: no reminder.
      const remindBefore = config.reminderBefore !== null && ttl !== null && ttl > config.reminderBefore ? config.reminderBefore : null;
      if (parsed.kind === "claim") {
        // Closing ends a lease, so a lease taken on a closed issue would stand for work nobody can do.
        if (ev.issue.state === "closed") {
          return refuse("forbidden", "This issue is closed, so it cannot be claimed. Reopen it first if there is work left.");
        }
        const refusal = mayClaim(ev, config);
        if (refusal) return refuse("forbidden", refusal);
        // Issue 11's policies (policies.ts): whom the lease goes to, and the limits the transaction checks.
        const claim = await decideClaim({ installation: ev.installation, actor, issue: ev.issue, target: parsed.target }, config, now, deps);
        if (!claim.ok) return refuse(claim.outcome, claim.reason);
        const given = claim.assignedBy !== undefined ? { assignedBy: claim.assignedBy, mentionHolder: true } : {};
        const applied = await ledger.acquire(key, claim.holder, ttl, now, {
          maxPerHolder: config.maxLeasesPerHolder,
          countInReview: config.countInReview,
          remindBefore,
          policies: claim.policies,
          ...(claim.assignedBy !== undefined ? { actor } : {}),
          exempt: carriesExemptLabel(ev.issue.labels, config),
          ...limited((res: AcquireResult) => {
            if (res.outcome === "acquired") {
              return effect(reply("acquired", leaseView(res.lease), { newTenure: res.newTenure, ...given }), true, config);
            }
            if (res.outcome === "held") return effect(reply("held", leaseView(res.lease)), false);
            return effect(reply("forbidden", null, { reason: limitReason(key, res) }), false);
          }),
        });
        return done(applied.outcome === "limit" ? "forbidden" : applied.outcome, applied);
      }
      const applied = await ledger.renew(key, actor, ttl, now, {
        remindBefore,
        ...limited((res: RenewResult) =>
          res.outcome === "renewed"
            ? effect(reply("renewed", leaseView(res.lease)), true, config)
            : effect(reply("not_holder", leaseView(res.lease)), false),
        ),
      });
      return done(applied.outcome, applied);
    }
    case "release": {
      const self = parsed.target === null || parsed.target.toLowerCase() === actor.login.toLowerCase();
      if (self) {
        const applied = await ledger.release(
          key,
          actor,
          now,
          limited((res: ReleaseResult) => effect(reply(res.outcome, leaseView(res.lease)), res.outcome === "released", config)),
        );
        return done(applied.outcome, applied);
      }
      // Acting on someone else's lease: ask GitHub, never trust the payload.
      const permission = await deps.permission(actor.login);
      if (!WRITERS.includes(permission)) {
        return refuse("forbidden", RELEASE_OTHERS_FORBIDDEN);
      }
      const applied = await ledger.forceRelease(key, actor, now, {
        ifHolder: parsed.target ?? undefined,
        ...limited((res: ForceReleaseResult) =>
          res.outcome === "released"
            ? effect(reply("released", leaseView(res.lease), { mentionHolder: true }), true, config)
            : effect(reply("not_holder", leaseView(res.lease)), false),
        ),
      });
      // No tenure guard is passed, so `stale` cannot come back: a refusal, as not_holder.
      return done(applied.outcome === "released" ? "released" : "not_holder", applied);
    }
    case "lease": {
      const tenures = tenuresOf(await ledger.history(key, 200), now).slice(-5);
      return refuse("status", undefined, { tenures });
    }
  }
}

/** The refusal of `/release @user` to someone without write, maintain or admin permission. */
export const RELEASE_OTHERS_FORBIDDEN =
  "Only people with write, maintain or admin permission on this repository can release someone else's lease. Use `/release` on its own to end your own.";

function mayClaim(ev: CommentEvent, config: Config): string | null {
  if (!config.bots && ev.author.type === "Bot") {
    return "Bots may not claim issues in this repository (`bots: false` in `.github/issue-leases.yml`).";
  }
  const association = ev.author.association.toUpperCase();
  if (config.claimers === "collaborators" && !["OWNER", "MEMBER", "COLLABORATOR"].includes(association)) {
    return "Only collaborators of this repository can claim issues here (`claimers: collaborators`).";
  }
  if (config.claimers === "members" && !["OWNER", "MEMBER"].includes(association)) {
    return "Only members of this organisation can claim issues here (`claimers: members`).";
  }
  return null;
}

/** Tenures from an issue's history: each new tenure, and how it ended. */
export function tenuresOf(history: Awaited<ReturnType<Ledger["history"]>>, now: number): TenureView[] {
  const tenures: TenureView[] = [];
  for (const h of history) {
    const last = tenures[tenures.length - 1];
    if (h.outcome === "acquired" && h.holder && h.token !== null && (!last || last.token !== h.token)) {
      if (last && last.ended === "live") {
        last.ended = "expired";
        last.to = last.to ?? h.at;
      }
      tenures.push({ holder: h.holder.login, token: h.token, from: h.at, to: h.expiresAt, ended: "live" });
    } else if (last && last.token === h.token && last.ended === "live") {
      // A `follow` row (a pull request or exempt label holds it or let it go, or activity renewed it) moves its end too.
      if (h.outcome === "renewed" || (h.outcome === "acquired" && h.op === "acquire") || h.op === "follow") last.to = h.expiresAt;
      else if (h.outcome === "released") {
        last.ended = h.op === "force_release" ? `released by ${h.actor?.login ?? "a maintainer"}` : "released";
        last.to = h.at;
      } else if (h.outcome === "expired") {
        last.ended = "expired";
      }
    }
  }
  for (const t of tenures) if (t.ended === "live" && t.to !== null && t.to <= now) t.ended = "expired";
  return tenures;
}
