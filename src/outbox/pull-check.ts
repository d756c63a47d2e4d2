/**
 * The `check` effect: posts a pull request's lease check, evaluated against
 * the ledger when applied, so that a check always reports the leases as they
 * are when it is posted.
 *
 * Which issues the pull request closes is read from GitHub here, not on the
 * webhook path: a slow GitHub then delays the check (the effect is retried)
 * but never a webhook delivery, and a re-check after a lease change sees
 * sidebar links made since.
 *
 * What is remembered lives in the drainer's reflections, under negative
 * issue numbers (issue and pull request numbers share one sequence, so they
 * never collide): `-P` holds pull request P's record, `-I` the open pull
 * requests that close issue I. A lease change on I then re-checks exactly
 * those pull requests. Effects of one pull request apply one at a time and in
 * order, so `-P` has one writer; `-I` is shared by every pull request that
 * closes I, so relinking takes turns per repository (see `linksTurn`).
 *
 * The same read feeds the ledger's pull links (`FollowLinks.linkPull`), in the
 * same turn: an open pull request by a lease's holder that closes its issue
 * holds the lease (it does not expire), and the issue shows it with a label
 * (an effect of the issue's own, written with the links). A closed pull
 * request's links go when its `check` effect with `seen: null` is applied,
 * after any check of it still queued (effects of one pull request apply in
 * order), so a late check cannot link a closed pull request again.
 */
import { CHECK_NAME, closedIssues, evaluateLeaseCheck, tooManyReferences } from "../checks/lease-check.js";
import { DEFAULT_CONFIG } from "../config/config.js";
import { resumeOf } from "../config/work-policy.js";
import type { Effect } from "../ledger/outbox/outbox-types.js";
import type { HeldLock, NamedLocks } from "../ledger/admin/admin-roles.js";
import type { Holder } from "../ledger/leases/lease-types.js";
import type { FollowLinks } from "../ledger/work/work-roles.js";
import type { LeaseReads } from "../ledger/leases/lease-roles.js";
import type { Reflections } from "../ledger/outbox/outbox-roles.js";
import type { GitHubPort } from "../github/github-port.js";
import { type CheckPayload, type PullRecord, type PullWork, reflectEffect } from "./effects.js";

export interface PullLinks {
  pull?: PullRecord;
  closedBy?: number[];
}

export async function pullLinks(ledger: Reflections, repoId: number, n: number): Promise<PullLinks> {
  return ((await ledger.getReflection(repoId, -n)) as PullLinks | null) ?? {};
}

/**
 * Remembers the pull request's record (null: forgets it) and moves it from
 * the `closedBy` lists of the issues it closed to those it closes now,
 * writing only what changes. Its own row is re-read here: another pull
 * request may have relinked it (one that closes it) since.
 */
async function relink(ledger: Reflections, repoId: number, pull: number, record: PullRecord | null, now: number): Promise<void> {
  const self = await pullLinks(ledger, repoId, pull);
  const before = self.pull?.refs ?? [];
  const after = record?.refs ?? [];
  if (JSON.stringify(record ?? undefined) !== JSON.stringify(self.pull)) {
    await ledger.putReflection(repoId, -pull, { closedBy: self.closedBy, ...(record ? { pull: record } : {}) }, now);
  }
  for (const issue of new Set([...before, ...after])) {
    const l = await pullLinks(ledger, repoId, issue);
    const had = (l.closedBy ?? []).includes(pull);
    const has = after.includes(issue);
    if (had === has) continue;
    const closedBy = (l.closedBy ?? []).filter((p) => p !== pull);
    if (has) closedBy.push(pull);
    await ledger.putReflection(repoId, -issue, { ...l, closedBy }, now);
  }
}

export interface CheckDeps {
  ledger: LeaseReads & Reflections & NamedLocks & FollowLinks;
  clock: () => number;
  /** Who this process is, in the ledger's named locks. */
  owner: string;
}

const turns = new WeakMap<CheckDeps["ledger"], Map<number, Promise<unknown>>>();
/**
 * How long a row lock on the repository's links lasts if its holder stops
 * extending it (PostgreSQL's ends with its holder's connection); a relink is
 * at most 51 small writes.
 */
const LINKS_LOCK_MS = 30_000;

/**
 * Runs `f` alone among the relinks of one repository: two pull requests
 * opened at once for the same issue would otherwise both read its `closedBy`
 * and one link be lost, and with it the re-checks of that pull request. In
 * this process by a queue; across replicas by the ledger's named lock.
 */
async function linksTurn<T>(deps: CheckDeps, repoId: number, f: () => Promise<T>): Promise<T> {
  let queues = turns.get(deps.ledger);
  if (!queues) turns.set(deps.ledger, (queues = new Map()));
  const turn = (queues.get(repoId) ?? Promise.resolve()).then(async () => {
    const name = `pull-links/${repoId}`;
    const take = () => deps.ledger.holdLock(name, deps.owner, deps.clock, LINKS_LOCK_MS);
    let lock: HeldLock | null = null;
    for (let tries = 0, wait = 10; deps.ledger.sharedByProcesses && !(lock = await take()); tries++) {
      // The effect is retried later rather than holding a drainer slot for long.
      if (tries >= 100) throw new Error(`pull request links of repository ${repoId} stayed locked; will retry`);
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(2 * wait, 500);
    }
    try {
      return await f();
    } finally {
      await lock?.release();
    }
  });
  const settled = turn.catch(() => undefined);
  queues.set(repoId, settled);
  try {
    return await turn;
  } finally {
    if (queues.get(repoId) === settled) queues.delete(repoId);
  }
}

/**
 * The ledger's links of the pull request: the issues it closes now (none once
 * closed), with an effect for each issue whose lease it took or let go, so
 * that the issue's labels show it. Returns whether effects were written.
 */
async function linkLeases(
  deps: CheckDeps,
  effect: Effect,
  p: CheckPayload,
  author: Holder,
  issues: number[],
  work: PullWork | undefined,
  at?: number,
): Promise<boolean> {
  // Only an effect queued before pull requests held leases has no config with it; such a pull request holds none.
  const resume = work?.resume ?? resumeOf(DEFAULT_CONFIG);
  const key = { repoId: effect.repoId, repo: `${p.owner}/${p.repo}`, issue: p.pull };
  // Each issue whose lease changed shows it. Who holds it and with which token did not change: no pull request needs checking again.
  const shown = reflectEffect(effect.installation, key.repo, {
    reconcile: true,
    reply: null,
    recheck: false,
    ...(work ? { labels: work.labels, assign: work.assign } : {}),
  });
  const { changed } = await deps.ledger.linkPull(key, author, issues, deps.clock(), { resume, effect: shown, ...(at !== undefined ? { at } : {}) });
  return changed.length > 0;
}

/** What the lease check asks of GitHub: the issues the pull request closes, and the check run posted. */
export type LeaseCheckGitHub = Pick<GitHubPort, "closingIssues" | "createCheckRun">;

/** Posts the check (or forgets a closed pull request). Returns whether it wrote effects of other issues (their leases changed). */
export async function applyCheck(
  deps: CheckDeps,
  effect: Effect,
  p: CheckPayload,
  github: LeaseCheckGitHub,
): Promise<boolean> {
  const { ledger, clock } = deps;
  const { repoId } = effect;
  if (p.seen === null) {
    return linksTurn(deps, repoId, async () => {
      const known = (await pullLinks(ledger, repoId, p.pull)).pull;
      await relink(ledger, repoId, p.pull, null, clock());
      const author = p.closed?.author ?? known?.author;
      if (!author) return false;
      return linkLeases(deps, effect, p, author, [], p.closed?.work ?? known?.work, p.closed?.at);
    });
  }
  const seen = p.seen ?? (await pullLinks(ledger, repoId, p.pull)).pull;
  if (!seen) return false; // closed since

  const r = { owner: p.owner, repo: p.repo };
  const full = `${p.owner}/${p.repo}`;
  const read = await github.closingIssues(r, p.pull);
  const { issues, tooMany } = closedIssues(
    { linked: read.linked, linkedTotal: read.linkedTotal, texts: [read.title, ...read.commitMessages] },
    { id: repoId, fullName: full },
  );
  const record: PullRecord = {
    headSha: seen.headSha,
    author: seen.author,
    tokenAll: seen.tokenAll,
    tokenByIssue: seen.tokenByIssue,
    requireLease: seen.requireLease,
    ...(seen.work ? { work: seen.work } : {}),
    refs: issues,
  };
  // A pull request past the 50 issues the check reads holds no lease: its check fails without looking at them.
  const queued = await linksTurn(deps, repoId, async () => {
    await relink(ledger, repoId, p.pull, record, clock());
    return linkLeases(deps, effect, p, record.author, tooMany ? [] : issues, record.work);
  });

  let result;
  if (tooMany) {
    result = tooManyReferences();
  } else {
    const leases = [];
    for (const issue of issues) {
      const key = { repoId, repo: full, issue };
      leases.push({ issue, lease: await ledger.current(key, clock()), latestToken: await ledger.latestToken(key) });
    }
    result = evaluateLeaseCheck({
      author: record.author,
      leases,
      tokens: { all: record.tokenAll, byIssue: new Map(record.tokenByIssue) },
      requireLease: record.requireLease,
    });
  }
  await github.createCheckRun(r, { name: CHECK_NAME, headSha: record.headSha, ...result });
  return queued;
}
