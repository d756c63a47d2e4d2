/**
 * Leases that follow the work, each operation written once (plan.ts; the
 * rules are work-rules.ts's): which open pull requests close which issues,
 * the leases they hold, the holder's activity that renews a lease, and exempt
 * labels. The rows an operation may change are locked in the order of their
 * issues before they are read, so no two transactions wait on each other in a
 * circle.
 */
import { decide } from "../leases/decide.js";
import { writeEvents } from "../events/event-plans.js";
import { ask, type IssueRow, type Plan, type RunPlan, type Step } from "../plan.js";
import type { FollowLinks } from "./work-roles.js";
import type { Applied, Holder, IssueKey, Lease } from "../leases/lease-types.js";
import type { ActivityPolicy, ActivityResult, ExemptOptions, ExemptResult, Followed, LinkPullOptions, LinkPullResult } from "./work-types.js";
import { followExempt, followPulls, remindAtFor, renewedByActivity } from "./work-rules.js";

/**
 * Writes a lease the work changed, and its `follow` history row (which the row
 * then names as its latest); and its event when its expiry changed (not when
 * only the pull requests holding it did, `linked`).
 */
function* follow(
  key: IssueKey,
  row: IssueRow,
  followed: Followed,
  actor: Holder,
  now: number,
  delivery: string | null,
  termMs: number | null,
  remindBefore: number | null,
): Generator<Step, void, unknown> {
  const { lease } = followed;
  const history = { key, op: "follow" as const, outcome: followed.change, actor, lease, at: now, delivery, replied: null, prev: row.head };
  const lastHistory = yield* ask({ op: "history", row: history });
  const remindAt = remindAtFor(lease.expiresAt, termMs, remindBefore);
  yield* ask({ op: "followLease", write: { key, lease, remindAt, termMs, lastHistory }, now });
  if (followed.change !== "linked") yield* writeEvents([{ type: "lease.renewed", lease }], { actor, now, cause: "work", installation: null });
}

/** The first result of a delivery already applied, as a duplicate; null when this transaction claimed it. */
function* seen<R>(delivery: string | undefined, now: number): Generator<Step, Applied<R> | null, unknown> {
  if (delivery === undefined) return null;
  const first = yield* ask({ op: "delivery", id: delivery, now });
  return first === null ? null : { ...(first as R), duplicate: true };
}

function* recordDelivery<R>(delivery: string | undefined, result: R, now: number): Plan<Applied<R>> {
  if (delivery !== undefined) yield* ask({ op: "putDelivery", id: delivery, result: JSON.stringify(result), now });
  return { ...result, duplicate: false };
}

export const workPlans = {
  *linkPull(pull: IssueKey, author: Holder, issues: number[], now: number, opts: LinkPullOptions): Plan<LinkPullResult> {
    const repoId = pull.repoId;
    const before = yield* ask({ op: "closedBy", repoId, pull: pull.issue });
    const wanted = [...new Set(issues)].filter((i) => i > 0 && i !== pull.issue);
    const remove = before.filter((i) => !wanted.includes(i));
    if (remove.length > 0 || wanted.length > 0) yield* ask({ op: "relink", repoId, pull: pull.issue, authorId: author.id, add: wanted, remove });

    const start = Math.min(opts.at ?? now, now);
    const changed: Followed[] = [];
    // Locked after the links are written: a pull request linking the same issue at once waits here, then reads ours.
    for (const row of yield* ask({ op: "rows", repoId, issues: [...new Set([...before, ...wanted])] })) {
      const key = { repoId, repo: pull.repo, issue: row.issue };
      const current = decide.live(key, row.rule, now);
      // A pull request holds only its author's lease.
      if (!current || current.holder.id !== author.id) continue;
      const pulls = yield* ask({ op: "pullsOf", repoId, issue: row.issue, authorId: author.id });
      const followed = followPulls(current, pulls, opts.resume, start);
      if (!followed) continue;
      const resumed = followed.change === "resumed";
      const termMs = resumed ? opts.resume.ttl : (row.rule?.termMs ?? null);
      yield* follow(key, row, followed, author, now, null, termMs, resumed ? opts.resume.remindBefore : null);
      changed.push(followed);
    }
    if (opts.effect) for (const f of changed) yield* ask({ op: "enqueue", repoId, issue: f.lease.issue, effect: opts.effect, now });
    return { outcome: "linked", changed };
  },

  *renewOnActivity(key: IssueKey, actor: Holder, now: number, policy: ActivityPolicy, delivery: string | undefined): Plan<Applied<ActivityResult>> {
    const first = yield* seen<ActivityResult>(delivery, now);
    if (first) return first;
    const linked = yield* ask({ op: "closedBy", repoId: key.repoId, pull: key.issue });
    const renewed: Lease[] = [];
    for (const row of yield* ask({ op: "rows", repoId: key.repoId, issues: [key.issue, ...linked] })) {
      const k = { ...key, issue: row.issue };
      const current = decide.live(k, row.rule, now);
      const r = current && renewedByActivity(current, actor.id, row.rule?.termMs, policy.fallbackTtl, now);
      if (!r) continue;
      yield* follow(k, row, { change: "renewed", lease: r.lease }, actor, now, delivery ?? null, r.termMs, policy.remindBefore);
      renewed.push(r.lease);
    }
    return yield* recordDelivery<ActivityResult>(delivery, { outcome: renewed.length > 0 ? "renewed" : "none", renewed }, now);
  },

  *setExempt(key: IssueKey, actor: Holder, exempt: boolean, now: number, opts: ExemptOptions): Plan<Applied<ExemptResult>> {
    const first = yield* seen<ExemptResult>(opts.delivery, now);
    if (first) return first;
    const [row] = yield* ask({ op: "rows", repoId: key.repoId, issues: [key.issue] });
    const current = row ? decide.live(key, row.rule, now) : null;
    const followed = current && followExempt(current, exempt, opts.resume, now);
    let result: ExemptResult = { outcome: "unchanged", lease: current };
    if (row && followed) {
      const resumed = followed.change === "resumed";
      const termMs = resumed ? opts.resume.ttl : (row.rule?.termMs ?? null);
      yield* follow(key, row, followed, actor, now, opts.delivery ?? null, termMs, resumed ? opts.resume.remindBefore : null);
      result = { outcome: resumed ? "resumed" : "suspended", lease: followed.lease };
    }
    return yield* recordDelivery(opts.delivery, result, now);
  },
};

/**
 * The work's operations as a ledger runs them, each its plan as one
 * transaction of the store (`run`). A renewal by activity is what every
 * comment, push and review by anyone costs: it first asks the store, outside
 * any transaction, whether the actor holds a lease their activity could renew
 * (`mayRenew`, one indexed read), and only then the repository's policy.
 */
export function workOperations(run: RunPlan, mayRenew: (key: IssueKey, actor: Holder, now: number) => Promise<boolean>): FollowLinks {
  return {
    linkPull: async (pull, author, issues, now, opts) => run(now, (now) => workPlans.linkPull(pull, author, issues, now, opts)),
    renewOnActivity: async (key, actor, now, opts) => {
      if (!(await mayRenew(key, actor, now))) return { outcome: "none", renewed: [] };
      const policy = await opts.policy();
      if (!policy) return { outcome: "none", renewed: [] };
      return run(now, (now) => workPlans.renewOnActivity(key, actor, now, policy, opts.delivery));
    },
    setExempt: async (key, actor, exempt, now, opts) => run(now, (now) => workPlans.setExempt(key, actor, exempt, now, opts)),
  };
}
