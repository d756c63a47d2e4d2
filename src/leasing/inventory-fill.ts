/**
 * Fills the inventory of open issues from GitHub's issue list, on install
 * and after a gap, and reconciles it periodically: webhooks keep it between
 * fills, and a fill corrects what they missed (an issue closed while the app
 * was down). A fill pages `GET /repos/{owner}/{repo}/issues?state=open`, 100
 * a page, pull requests left out, one request at a time per installation,
 * each taking a slot of the installation's budget in its lowest tier (after
 * replies and notices), at most `maxPages` requests per fill. One that saw
 * every page closes the issues it did not see (`closeUnseen`); one cut short
 * closes nothing. Replicas take turns: a repository's fill, and the periodic
 * pass over repositories due one, each hold a named lock of the ledger.
 */
import { randomUUID } from "node:crypto";
import type { HeldLock, NamedLocks } from "../ledger/admin/admin-roles.js";
import type { RepoInfo, RepoMemory } from "../ledger/repos/repo-memory.js";
import type { Inventory } from "../ledger/inventory/inventory-roles.js";
import type { GitHubBudget } from "../github/budget.js";
import { READ } from "../github/budget-settings.js";
import { type GitHubPort, httpStatus } from "../github/github-port.js";
import { issueSnapshot } from "../github/issue-snapshot.js";

export interface InventorySettings {
  /** How often each repository is filled again (`INVENTORY_RECONCILE`, default 6h); 0: never. */
  reconcileMs: number;
  /** Requests one fill may make (`INVENTORY_FILL_MAX_PAGES`, default 200: 20,000 open issues). */
  maxPages: number;
}

export const DEFAULT_INVENTORY: InventorySettings = { reconcileMs: 6 * 3_600_000, maxPages: 200 };

/** What a fill asks GitHub: a page of a repository's open issues. */
export type FillGitHub = Pick<GitHubPort, "openIssues">;

export interface FillDeps {
  ledger: Inventory & RepoMemory & NamedLocks;
  clock: () => number;
  github: (installation: number) => Promise<FillGitHub>;
  /** The installation's budget of GitHub requests; null: none (tests with GitHub's pacing off). */
  budget: GitHubBudget | null;
  log: { info(o: object, m: string): void; warn(o: object, m: string): void };
  settings?: Partial<InventorySettings>;
}

export interface FillResult {
  repoId: number;
  requests: number;
  /** Open issues seen. */
  issues: number;
  /** Issues stored open that the fill did not see: closed without an event. */
  closed: number;
  /** Every page was read (false: cut at maxPages, or the repository is no longer served). */
  complete: boolean;
}

/** The budget's lowest tier: a fill waits behind replies to commands and expiry notices. */
const FILL_TIER = 2;
/** At start, repositories not filled within this long are filled again: what webhooks the app missed while it was down. */
const START_GAP_MS = 10 * 60_000;
/** How long a replica's fill lock outlives it on SQLite (PostgreSQL's ends with its connection). */
const FILL_LOCK_MS = 60_000;

/** How long a page of GitHub's issue list is thought to take before one was timed (its budget slot included). */
const FIRST_PAGE_MS = 1_000;

/** Pages a fill of a repository with `openIssues` open issues and pull requests (GitHub's `open_issues_count`) reads. */
export function pagesFor(openIssues: number | undefined, maxPages: number): number {
  return Math.min(maxPages, Math.max(1, Math.ceil((openIssues ?? 0) / 100)));
}

/**
 * One repository's fill. `onPage` hears of each page read: how many so far,
 * how long the page took (its budget slot included), and how many pages
 * GitHub says there are (its Link header's last), when it says.
 */
export async function fillRepo(
  deps: FillDeps,
  repo: RepoInfo,
  signal?: AbortSignal,
  onPage?: (read: number, tookMs: number, lastPage?: number) => void,
): Promise<FillResult> {
  const { ledger, clock } = deps;
  const maxPages = deps.settings?.maxPages ?? DEFAULT_INVENTORY.maxPages;
  const started = clock();
  const [owner, name] = repo.repo.split("/") as [string, string];
  const port = await deps.github(repo.installation);
  const seen: number[] = [];
  const result: FillResult = { repoId: repo.repoId, requests: 0, issues: 0, closed: 0, complete: false };
  for (let page = 1; page <= maxPages; page++) {
    signal?.throwIfAborted();
    const pageStarted = clock();
    const slot = deps.budget ? await deps.budget.acquire(repo.installation, FILL_TIER, READ, signal) : null;
    let listed: Awaited<ReturnType<GitHubPort["openIssues"]>>;
    try {
      result.requests++;
      listed = await port.openIssues({ owner, repo: name }, page);
    } catch (error) {
      // The installation no longer reaches it (removed, deleted): forget it until an event or install brings it back.
      if (httpStatus(error) === 404 || httpStatus(error) === 410) {
        await ledger.forgetInventory([repo.repoId], clock());
        return result;
      }
      throw error;
    } finally {
      slot?.release();
    }
    const snaps = listed.issues.map((i) => issueSnapshot(repo.repoId, i)).filter((s) => s !== null);
    await ledger.rememberIssues(snaps, clock());
    for (const s of snaps) seen.push(s.issue);
    onPage?.(page, clock() - pageStarted, listed.lastPage);
    if (!listed.more) {
      result.complete = true;
      break;
    }
  }
  result.issues = seen.length;
  if (result.complete) result.closed = await ledger.closeUnseen(repo.repoId, seen, started, clock());
  await ledger.markFilled({ repoId: repo.repoId, filledAt: started, issues: seen.length }, clock());
  return result;
}

/**
 * Fills repositories on request (an install, a repository added, one not
 * filled yet), one at a time per installation, and every `reconcileMs` those
 * due, in turns across replicas.
 */
export class InventoryFiller {
  private readonly owner = `${process.pid}-${randomUUID()}`;
  /** Per installation: the fill under way and those queued behind it. */
  private readonly chains = new Map<number, Promise<unknown>>();
  private readonly queued = new Set<number>();
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<unknown> | null = null;
  private held: HeldLock | null = null;
  private stopped = false;
  private started = false;
  /** Aborted at stop: a fill under way stops before its next page. */
  private readonly stopping = new AbortController();
  private readonly settings: InventorySettings;
  /** Fills queued or under way, by repository, in the order queued: the pages each is thought to need, and has read. */
  private readonly underway = new Map<number, { installation: number; pages: number; read: number }>();
  /** How long a page took, on average of those timed here: what an estimate counts per page. */
  private msPerPage = FIRST_PAGE_MS;

  constructor(private readonly deps: FillDeps & { onFilled?: (r: FillResult) => void }) {
    this.settings = { ...DEFAULT_INVENTORY, ...deps.settings };
  }

  /** An event asks for a fill (an install): queued once the loops run (`start`); tests drive `fill` and `reconcile` by hand. */
  request(repo: RepoInfo): void {
    if (this.started) void this.fill(repo);
  }

  /**
   * A `next` found the repository never filled: its fill now, unless one is
   * queued or under way already (the first is started anyway: on install, or
   * at the next reconcile). Answers how long until it is likely done (ms):
   * the pages it and the fills queued before it on the installation are
   * thought to need (from `openIssues`, GitHub's `open_issues_count`, until
   * GitHub's Link header says), at the time a page has taken. Null while the
   * loops do not run (`start`).
   */
  fillSoon(repo: RepoInfo, openIssues?: number): number | null {
    if (!this.started || this.stopped) return null;
    if (!this.underway.has(repo.repoId)) void this.fill(repo);
    const mine = this.underway.get(repo.repoId);
    if (mine && mine.read === 0) mine.pages = Math.max(mine.pages, pagesFor(openIssues, this.settings.maxPages));
    let pages = 0;
    for (const [repoId, u] of this.underway) {
      if (u.installation === repo.installation) pages += Math.max(1, u.pages - u.read);
      if (repoId === repo.repoId) break;
    }
    return Math.max(1, pages) * this.msPerPage;
  }

  /** Queues a fill of `repo` behind its installation's; one already queued is not queued twice. Resolves when it is done (null: not run). */
  fill(repo: RepoInfo): Promise<FillResult | null> {
    if (this.stopped || this.queued.has(repo.repoId)) return Promise.resolve(null);
    this.queued.add(repo.repoId);
    if (!this.underway.has(repo.repoId)) this.underway.set(repo.repoId, { installation: repo.installation, pages: 1, read: 0 });
    const before = this.chains.get(repo.installation) ?? Promise.resolve();
    const run = before.then(() => this.fillNow(repo)).finally(() => {
      // Unless another fill of it was queued meanwhile (it then keeps the entry).
      if (!this.queued.has(repo.repoId)) this.underway.delete(repo.repoId);
    });
    const chain = run.catch(() => undefined);
    this.chains.set(repo.installation, chain);
    void chain.then(() => {
      if (this.chains.get(repo.installation) === chain) this.chains.delete(repo.installation);
    });
    return run;
  }

  private async fillNow(repo: RepoInfo): Promise<FillResult | null> {
    this.queued.delete(repo.repoId);
    const { ledger, clock, log } = this.deps;
    const lock = await ledger.holdLock(`inventory-fill:${repo.repoId}`, this.owner, clock, FILL_LOCK_MS);
    if (!lock) return null; // another replica fills it now
    try {
      const onPage = (read: number, tookMs: number, lastPage?: number) => {
        const u = this.underway.get(repo.repoId);
        if (u) Object.assign(u, { read, pages: lastPage ?? Math.max(u.pages, read + 1) });
        this.msPerPage = Math.round(0.7 * this.msPerPage + 0.3 * tookMs);
      };
      const r = await fillRepo({ ...this.deps, settings: this.settings }, repo, AbortSignal.any([lock.signal, this.stopping.signal]), onPage);
      log.info({ repo: repo.repo, ...r }, "inventory filled");
      this.deps.onFilled?.(r);
      return r;
    } catch (error) {
      log.warn({ err: error, repo: repo.repo }, "inventory fill failed; the next reconcile tries again");
      return null;
    } finally {
      await lock.release().catch(() => undefined);
    }
  }

  /**
   * Fills every repository due one: never filled, or not within `dueMs`
   * (default `reconcileMs`), unless another replica does this pass. Returns
   * how many were filled.
   */
  async reconcile(dueMs = this.settings.reconcileMs): Promise<number> {
    const { ledger, clock } = this.deps;
    if (!this.held || this.held.signal.aborted) {
      this.held = await ledger.holdLock("inventory-reconcile", this.owner, clock, FILL_LOCK_MS);
      if (!this.held) return 0;
    }
    let filled = 0;
    for (;;) {
      const due = await ledger.staleFills(clock() - dueMs, 20);
      const fills = due.filter((r) => !this.queued.has(r.repoId)).map((r) => this.fill(r));
      const done = (await Promise.all(fills)).filter((r) => r !== null);
      filled += done.length;
      // Stop when nothing more is due, or what is due could not be filled now (it is tried at the next pass).
      if (due.length < 20 || done.length === 0 || this.stopped) return filled;
    }
  }

  /**
   * Reconciles every tenth of `reconcileMs` (at most 10 min), and at start
   * after a gap: the app was down, and webhooks sent meanwhile were lost, so
   * the first pass fills every repository not filled in the last `START_GAP_MS`.
   */
  start(): void {
    this.started = true;
    if (this.timer || this.settings.reconcileMs <= 0) return;
    let first = true;
    const tick = () => {
      if (this.inFlight) return;
      const dueMs = first ? Math.min(START_GAP_MS, this.settings.reconcileMs) : this.settings.reconcileMs;
      first = false;
      this.inFlight = this.reconcile(dueMs)
        .catch((error) => this.deps.log.warn({ err: error }, "inventory reconcile failed; the next one tries again"))
        .finally(() => {
          this.inFlight = null;
        });
    };
    this.timer = setInterval(tick, Math.min(this.settings.reconcileMs / 10, 600_000));
    this.timer.unref();
    tick();
  }

  /** Resolves when every fill queued now is done. */
  async idle(): Promise<void> {
    while (this.chains.size > 0 || this.inFlight) await Promise.all([...this.chains.values(), this.inFlight]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort(new Error("shutting down"));
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.idle();
    const held = this.held;
    this.held = null;
    await held?.release().catch(() => undefined);
  }
}
