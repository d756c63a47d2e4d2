/**
 * The outbox drainer: applies the effects that ledger operations wrote in
 * their own transaction, so that a lease decided in the ledger reaches
 * GitHub whatever GitHub or the process does in between.
 *
 * - In order per issue: the ledger hands out only the oldest pending effect
 *   of each issue, and locks it while it is applied.
 * - Idempotent: labels and the assignee are reconciled to what the ledger
 *   says *now* against what the drainer last applied (its "reflection"), so
 *   applying an effect twice changes nothing; a reply whose first attempt may
 *   have posted is looked for by its marker before it is posted again.
 * - Durable retry: 5xx, network errors and timeouts back off with jitter; a
 *   rate limit pauses that installation only, for as long as GitHub says;
 *   after `maxAttempts` an effect is parked, logged, counted by /health, and
 *   retried when the app restarts.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Logger } from "pino";
import type { Effect, IssueKey, Lease, Ledger } from "../ledger/types.js";
import { type GitHubPort, type HttpError, httpStatus, type Repo } from "./github-port.js";
import { desiredLabels, LABEL_STYLE, labelKind, type LabelTemplates } from "./labels.js";
import { applyCheck, CHECK, type CheckPayload } from "./pull-check.js";
import { renderReply, type Reply } from "./render.js";

/** The one kind of effect: make the issue show the ledger's truth, then post the reply, if any. */
export const REFLECT = "reflect";

export interface ReflectPayload {
  owner: string;
  repo: string;
  /** Label templates in force when the command ran; absent for sweeps (the last applied ones are used). */
  labels?: LabelTemplates;
  assign?: boolean;
  /** The issue's labels as the webhook saw them: used only when the drainer has no memory of the issue. */
  snapshot?: string[];
  /** Reconcile labels and assignee (false for replies to refused commands: nothing changed). */
  reconcile: boolean;
  /**
   * The issue is gone (transferred, deleted): post nothing and touch nothing
   * on it, but delete from the repository the holder and token labels it
   * carried that no other live lease uses; then forget it.
   */
  gone?: boolean;
  reply: Reply | null;
}

export { CHECK, type CheckPayload, type PullRecord } from "./pull-check.js";

/** What the drainer last applied to an issue. */
interface Reflection {
  labels: string[];
  assignee: string | null;
  /** A login GitHub refused to assign, not to be tried again for the same holder. */
  refused?: string | null;
  templates?: LabelTemplates;
  assign?: boolean;
}

interface RepoReflection {
  /** Labels the app created with its colour and description. */
  created: string[];
  /** Holder and token labels the app deleted from the repository, and nothing has added since. */
  deleted: string[];
}

export interface DrainerOptions {
  ledger: Ledger;
  github: (installation: number) => Promise<GitHubPort>;
  clock: () => number;
  log: Pick<Logger, "info" | "warn" | "error" | "debug">;
  /** Effects taken per pass. */
  batchSize?: number;
  /** How long an effect stays taken by one drainer before another may take it (a crashed replica's). */
  lockMs?: number;
  maxAttempts?: number;
  /** First retry delay; doubles per attempt up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** How often to look for due effects when nothing woke the drainer. */
  pollMs?: number;
  /** How long `stop` waits for the pass in flight before handing its effects back to the outbox. */
  stopGraceMs?: number;
  random?: () => number;
  /** Called after an issue's lease changed on GitHub (for pull request checks). */
  onLeaseChanged?: (installation: number, key: IssueKey, lease: Lease | null) => Promise<void>;
  /** Who this drainer is, in the ledger's locks: unique per process. */
  owner?: string;
  /** How long a repository's label lock lasts if its holder dies holding it (shared ledgers only). */
  labelLockMs?: number;
}

const DEFAULT_TEMPLATES: LabelTemplates = { claimed: "claimed", holder: "claimed-by: {holder}", token: "lease #{token}" };

const same = (a: string | null | undefined, b: string | null | undefined) =>
  (a ?? "").toLowerCase() === (b ?? "").toLowerCase();

/** How long GitHub asks us to wait, in ms, or null when the error is not a rate limit. */
export function rateLimitWait(error: unknown, now: number): number | null {
  const status = httpStatus(error);
  if (status !== 403 && status !== 429) return null;
  const headers = (error as HttpError).response?.headers ?? {};
  const retryAfter = Number(headers["retry-after"]);
  if (headers["retry-after"] !== undefined && Number.isFinite(retryAfter)) return Math.max(0, retryAfter * 1000);
  if (String(headers["x-ratelimit-remaining"]) === "0") {
    const reset = Number(headers["x-ratelimit-reset"]) * 1000;
    if (Number.isFinite(reset)) return Math.max(1000, reset - now);
  }
  const message = String((error as HttpError).message ?? "");
  if (/secondary rate limit|abuse/i.test(message)) return 60_000;
  return status === 429 ? 60_000 : null;
}

export class Drainer {
  private readonly o: Required<Omit<DrainerOptions, "onLeaseChanged">> & Pick<DrainerOptions, "onLeaseChanged">;
  private readonly pausedUntil = new Map<number, number>();
  private running: Promise<void> | null = null;
  private stopping = false;
  private wake: (() => void) | null = null;
  private kicked = false;
  private inFlight: Promise<number> | null = null;
  /** Per repository, the turn of label creation in progress. */
  private readonly labelTurns = new Map<number, Promise<void>>();
  /** Effects taken and not yet completed or failed, by id. */
  private readonly applying = new Map<number, Effect>();

  constructor(opts: DrainerOptions) {
    this.o = {
      batchSize: 20,
      lockMs: 120_000,
      maxAttempts: 8,
      backoffMs: 1000,
      maxBackoffMs: 5 * 60_000,
      pollMs: 1000,
      stopGraceMs: 5000,
      random: Math.random,
      owner: `${hostname()}/${process.pid}/${randomUUID()}`,
      labelLockMs: 60_000,
      ...opts,
    };
  }

  /** Starts the background loop. */
  start(): void {
    if (this.running) return;
    this.stopping = false;
    this.running = this.loop();
  }

  /**
   * Stops taking effects and waits for the pass in flight to finish, for at
   * most `stopGraceMs`. A pass takes up to a batch of effects whose writes
   * queue behind GitHub's throttle (a second each), so it can outlast any
   * shutdown deadline; and a lock left by a process that exits holds its
   * effects back for `lockMs` after the restart. So what is still being
   * applied then is handed back, due at once. Applying it again is harmless:
   * labels are reconciled, and a reply that may have posted (the effect's
   * attempt was counted) is looked for before it is posted again.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      (this.running ?? Promise.resolve()).then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.o.stopGraceMs))),
    ]);
    clearTimeout(timer);
    if (!finished) {
      const now = this.o.clock();
      const handBack = [...this.applying.values()];
      this.applying.clear();
      for (const effect of handBack) await this.o.ledger.failEffect(effect.id, now, "handed back at shutdown", now);
      this.o.log.warn({ effects: handBack.map((e) => e.id) }, "outbox: shutting down; effects still being applied were handed back");
    }
    this.running = null;
  }

  /** Asks for a pass soon (after a ledger operation wrote effects). */
  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  /** Installations currently waiting out a rate limit. */
  paused(now = this.o.clock()): number[] {
    return [...this.pausedUntil].filter(([, until]) => until > now).map(([id]) => id);
  }

  /** One pass: takes up to a batch of due effects and applies them. Returns how many were taken. */
  async drainOnce(): Promise<number> {
    // Passes never overlap within one process; other processes are kept apart by the ledger's locks.
    while (this.inFlight) await this.inFlight;
    this.inFlight = this.pass();
    try {
      return await this.inFlight;
    } finally {
      this.inFlight = null;
    }
  }

  /** Drains until no effect is due now (for tests and shutdown). */
  async drainAll(maxPasses = 10_000): Promise<void> {
    for (let i = 0; i < maxPasses; i++) if ((await this.drainOnce()) === 0) return;
  }

  private async pass(): Promise<number> {
    const now = this.o.clock();
    const effects = await this.o.ledger.takeEffects(now, this.o.batchSize, this.o.lockMs, this.paused(now));
    await Promise.all(effects.map((effect) => this.applyOne(effect)));
    return effects.length;
  }

  /**
   * The background loop: keeps up to `batchSize` effects in flight, taking
   * more as soon as one finishes, so that one slow effect (a long retry, a
   * throttled write) holds back only its own issue.
   */
  private async loop(): Promise<void> {
    const { ledger, clock, log } = this.o;
    const running = new Set<Promise<void>>();
    while (!this.stopping) {
      const room = this.o.batchSize - running.size;
      let taken = 0;
      if (room > 0) {
        try {
          const now = clock();
          const effects = await ledger.takeEffects(now, room, this.o.lockMs, this.paused(now));
          taken = effects.length;
          for (const effect of effects) {
            const p: Promise<void> = this.applyOne(effect).finally(() => {
              running.delete(p);
              this.wake?.();
            });
            running.add(p);
          }
        } catch (error) {
          log.error({ err: error }, "outbox: taking effects failed; will try again");
        }
      }
      if (this.stopping) break;
      // A full take may have left more due; a kick says new effects were written.
      if ((taken > 0 && taken === room) || (this.kicked && room > 0)) {
        this.kicked = false;
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.o.pollMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
    await Promise.all(running);
  }

  private async applyOne(effect: Effect): Promise<void> {
    const { ledger, clock, log } = this.o;
    this.applying.set(effect.id, effect);
    try {
      const github = await this.o.github(effect.installation);
      if (effect.kind === REFLECT) await this.reflect(effect, effect.payload as ReflectPayload, github);
      else if (effect.kind === CHECK) await this.check(effect, effect.payload as CheckPayload, github);
      else throw new Error(`unknown effect kind ${effect.kind}`);
      await ledger.completeEffect(effect.id, clock());
    } catch (error) {
      await this.failed(effect, error);
    } finally {
      this.applying.delete(effect.id);
    }
  }

  private async failed(effect: Effect, error: unknown): Promise<void> {
    const { ledger, clock, log } = this.o;
    const now = clock();
    const status = httpStatus(error);
    const message = `${status ?? "error"}: ${(error as Error)?.message ?? String(error)}`.slice(0, 500);
    const where = { effect: effect.id, installation: effect.installation, repoId: effect.repoId, issue: effect.issue };
    const wait = rateLimitWait(error, now);
    if (wait !== null) {
      // Wait as GitHub says, for this installation only; others carry on.
      this.pausedUntil.set(effect.installation, Math.max(this.pausedUntil.get(effect.installation) ?? 0, now + wait));
      log.warn({ ...where, waitMs: wait }, "outbox: GitHub rate limit; pausing this installation");
      await ledger.failEffect(effect.id, now, message, now + wait);
      return;
    }
    if (status === 404 || status === 410) {
      // The issue, the repository or the installation is gone: nothing to show it on.
      log.warn({ ...where, status }, "outbox: the issue is gone; dropping the effect");
      await ledger.completeEffect(effect.id, now);
      return;
    }
    const permanent = status !== null && status >= 400 && status < 500 && status !== 408;
    if (permanent || effect.attempts >= this.o.maxAttempts) {
      log.error({ ...where, attempts: effect.attempts, error: message }, "outbox: effect parked as failed; it is retried on restart");
      await ledger.failEffect(effect.id, now, message, null);
      return;
    }
    const delay = Math.min(this.o.maxBackoffMs, this.o.backoffMs * 2 ** (effect.attempts - 1));
    const retryAt = now + Math.round(delay * (0.5 + this.o.random() / 2));
    log.warn({ ...where, attempts: effect.attempts, retryAt, error: message }, "outbox: effect failed; will retry");
    await ledger.failEffect(effect.id, now, message, retryAt);
  }

  private async reflect(effect: Effect, p: ReflectPayload, github: GitHubPort): Promise<void> {
    const { ledger, clock } = this.o;
    const r: Repo = { owner: p.owner, repo: p.repo };
    const key: IssueKey = { repoId: effect.repoId, repo: `${p.owner}/${p.repo}`, issue: effect.issue };
    const prior = (await ledger.getReflection(effect.repoId, effect.issue)) as Reflection | null;
    if (p.gone) {
      const templates = prior?.templates ?? DEFAULT_TEMPLATES;
      await this.removeLabels(key, r, github, templates, prior?.labels ?? [], { issueGone: true });
      await ledger.putReflection(effect.repoId, effect.issue, { labels: [], assignee: null }, clock());
      return;
    }
    const templates = p.labels ?? prior?.templates ?? DEFAULT_TEMPLATES;
    const assign = p.assign ?? prior?.assign ?? true;
    let refused = prior?.refused ?? null;
    let current: Lease | null = null;
    if (p.reconcile) {
      current = await ledger.current(key, clock());
      const state = await this.reconcile(key, r, github, templates, assign, prior, p.snapshot ?? [], current);
      refused = state.refused ?? null;
      await ledger.putReflection(effect.repoId, effect.issue, state, clock());
    }
    if (p.reply) {
      const ref = `${effect.id}.${effect.createdAt}`;
      const assignRefused =
        p.reply.outcome === "acquired" && p.reply.lease !== null && same(refused, p.reply.lease.holder);
      // A first attempt may have posted before the process died: look before posting again.
      const posted = effect.attempts > 1 && (await github.hasComment(r, effect.issue, `"ref":"${ref}"`));
      if (!posted) await github.createComment(r, effect.issue, renderReply(p.reply, { assignRefused, ref }));
    }
    if (p.reconcile && this.o.onLeaseChanged) await this.o.onLeaseChanged(effect.installation, key, current);
  }

  private async check(effect: Effect, p: CheckPayload, github: GitHubPort): Promise<void> {
    await applyCheck(this.o, effect, p, github);
  }

  private async reconcile(
    key: IssueKey,
    r: Repo,
    github: GitHubPort,
    templates: LabelTemplates,
    assign: boolean,
    prior: Reflection | null,
    snapshot: string[],
    current: Lease | null,
  ): Promise<Reflection> {
    const { ledger, clock } = this.o;
    const present = prior?.labels ?? snapshot.filter((name) => labelKind(templates, name) !== null);
    const desired = desiredLabels(templates, current);
    const toAdd = desired.filter((d) => !present.some((name) => same(name, d.name)));
    const toRemove = present.filter((name) => !desired.some((d) => same(d.name, name)));

    if (toAdd.length > 0) {
      // Adding takes a turn even when there is nothing to create: it waits for
      // a delete in flight that decided, before this lease existed, that no
      // lease used one of these labels any more (labels.test.ts shows it).
      await this.repoTurn(key.repoId, async (repo) => {
        // The `claimed` label is created once per repository with a colour and a description.
        for (const d of toAdd) {
          if (d.kind !== "claimed" || repo.created.some((name) => same(name, d.name))) continue;
          await github.createLabel(r, d.name, LABEL_STYLE[d.kind].color, LABEL_STYLE[d.kind].description);
          repo.created.push(d.name);
        }
        // Adding a label brings it back to the repository (GitHub creates it).
        repo.deleted = repo.deleted.filter((name) => !toAdd.some((d) => same(d.name, name)));
      });
      await github.addLabels(r, key.issue, toAdd.map((d) => d.name));
    }
    if (toRemove.length > 0) await this.removeLabels(key, r, github, templates, toRemove, { issueGone: false });

    let assignee = prior?.assignee ?? null;
    let refused = prior?.refused ?? null;
    const want = assign && current ? current.holder.login : null;
    if (assignee && !same(assignee, want)) {
      await github.removeAssignee(r, key.issue, assignee);
      assignee = null;
    }
    if (want && !same(assignee, want) && !same(refused, want)) {
      if (await github.addAssignee(r, key.issue, want)) assignee = want;
      else refused = want;
    }
    if (!want) refused = null;
    return { labels: desired.map((d) => d.name), assignee, refused, templates, assign };
  }

  /**
   * Takes `names` off the issue. A holder or token label no live lease uses
   * any more is deleted from the repository instead (which also takes it off
   * every issue), so repositories do not fill up with stale `claimed-by:` and
   * `lease #` labels. One the app deleted already is gone from this issue
   * too: in an expiry wave every first tenure's `lease #1` would otherwise be
   * deleted again. For an issue that is gone, only the repository's labels
   * are deleted.
   */
  private async removeLabels(
    key: IssueKey,
    r: Repo,
    github: GitHubPort,
    templates: LabelTemplates,
    names: string[],
    opts: { issueGone: boolean },
  ): Promise<void> {
    const { ledger, clock } = this.o;
    await this.repoTurn(key.repoId, async (repo) => {
      // Read in the turn: a lease that an add waiting for this turn shows is
      // in the ledger by now, and keeps its labels.
      const inUse = new Set<string>();
      for (const lease of await ledger.list(key.repoId, clock())) {
        if (lease.issue === key.issue) continue;
        for (const d of desiredLabels(templates, lease)) inUse.add(d.name.toLowerCase());
      }
      for (const name of names) {
        const kind = labelKind(templates, name);
        if ((kind === "holder" || kind === "token") && !inUse.has(name.toLowerCase())) {
          if (repo.deleted.some((gone) => same(gone, name))) continue;
          await github.deleteRepoLabel(r, name);
          repo.deleted.push(name);
        } else if (!opts.issueGone) {
          await github.removeIssueLabel(r, key.issue, name);
        }
      }
    });
  }

  /**
   * Runs `f` on the repository's label memory and saves what it changed.
   * Effects of one repository applied at once take turns here, so that only
   * the first creates the `claimed` label, none deletes a label twice, and
   * none deletes a label another is adding. What `f` did before failing is
   * saved too: those calls were made. On a ledger other processes share, a
   * turn also holds the repository's label lock in the ledger, so that the
   * turns of all replicas alternate.
   */
  private async repoTurn(repoId: number, f: (repo: RepoReflection) => Promise<void>): Promise<void> {
    const before = this.labelTurns.get(repoId) ?? Promise.resolve();
    const turn = before.then(async () => {
      const unlock = this.o.ledger.sharedByProcesses ? await this.labelLock(repoId) : null;
      try {
        const saved = (await this.o.ledger.getReflection(repoId, 0)) as Partial<RepoReflection> | null;
        const repo: RepoReflection = { created: [...(saved?.created ?? [])], deleted: [...(saved?.deleted ?? [])] };
        const snapshot = JSON.stringify(repo);
        try {
          await f(repo);
        } finally {
          if (JSON.stringify(repo) !== snapshot) await this.o.ledger.putReflection(repoId, 0, repo, this.o.clock());
        }
      } finally {
        await unlock?.();
      }
    });
    const settled = turn.catch(() => undefined);
    this.labelTurns.set(repoId, settled);
    try {
      await turn;
    } finally {
      if (this.labelTurns.get(repoId) === settled) this.labelTurns.delete(repoId);
    }
  }

  /**
   * Waits for the repository's label lock in the ledger, and returns how to
   * let go of it. A turn makes a few throttled writes; a replica that dies in
   * one leaves the lock to expire after `labelLockMs`.
   */
  private async labelLock(repoId: number): Promise<() => Promise<void>> {
    const { ledger, owner, clock, labelLockMs } = this.o;
    const name = `labels/${repoId}`;
    for (let wait = 10; !(await ledger.tryLock(name, owner, clock(), labelLockMs)); wait = Math.min(2 * wait, 500)) {
      // The effect goes back to the outbox, for this replica's successor or another.
      if (this.stopping) throw new Error("outbox: shutting down while waiting for a repository's label lock");
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    return () => ledger.unlock(name, owner);
  }
}
