/**
 * The drainer's settings (drainer.ts), and their defaults: what it takes
 * from the ledger and GitHub, how often and how long it tries, and whom it
 * tells what became of each attempt.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Logger } from "pino";
import type { Effect } from "../ledger/outbox/outbox-types.js";
import type { IssueKey, Lease } from "../ledger/leases/lease-types.js";
import type { FollowLinks } from "../ledger/work/work-roles.js";
import type { LeaseReads } from "../ledger/leases/lease-roles.js";
import type { NamedLocks } from "../ledger/admin/admin-roles.js";
import type { OutboxStore, Reflections } from "../ledger/outbox/outbox-roles.js";
import type { GitHubPort } from "../github/github-port.js";
import type { GitHubBudget } from "../github/budget.js";
import type { SendEvent } from "../events/send-event.js";
import { DEFAULT_LABEL_LINGER_MS, type GithubWrites } from "../github/budget-settings.js";
import type { NodeIds } from "../github/node-ids.js";

/** What became of an attempt at an effect; "lost_lock" when another drainer had taken it meanwhile. */
export type AttemptOutcome = "completed" | "dropped" | "retried" | "paused" | "parked" | "misconfigured" | "lost_lock" | "handed_back";

export interface DrainerOptions {
  ledger: OutboxStore & LeaseReads & Reflections & NamedLocks & FollowLinks;
  github: (installation: number) => Promise<GitHubPort>;
  clock: () => number;
  log: Pick<Logger, "info" | "warn" | "error" | "debug">;
  /** Effects taken per pass. */
  batchSize?: number;
  /**
   * How long an effect stays with the drainer that took it if that drainer
   * stops extending it (a replica killed mid-effect). Extended every third of
   * it while the effect is applied, so it bounds only how long a dead
   * replica's effects wait for another.
   */
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
  /** The longest wait between tries while the ledger does not answer. */
  maxLedgerBackoffMs?: number;
  /** Told what became of each attempt the ledger recorded, or that lost its lock (for metrics). */
  onAttempt?: (effect: Effect, outcome: AttemptOutcome, now: number) => void;
  /** GitHub's budget per installation; null (the default): no budget but GitHub's own answers. */
  budget?: GitHubBudget | null;
  /** The least a secondary rate limit pauses an installation for; default a minute, as GitHub asks. */
  minPauseMs?: number;
  /** Told of each rate limit GitHub answered (for metrics). */
  onRateLimited?: (installation: number, waitMs: number) => void;
  /** Sends webhook effects (events/send-event.ts); null (the default): no `EVENTS_WEBHOOK_SECRET`, and they are parked. */
  sendEvent?: SendEvent | null;
  /** How an effect's writes go to GitHub: `graphql`, one document per effect, or `rest`, a request per write (GITHUB_WRITES). */
  writes?: GithubWrites;
  /** Node ids webhooks showed, for `graphql` writes; default none learned. */
  nodeIds?: NodeIds | null;
  /** On `graphql` writes, how long a holder or token label no lease calls for lingers in its repository (LABEL_LINGER_S); default a day. */
  labelLingerMs?: number;
}

export const DEFAULT_LOCK_MS = 20_000;

type Hooks = "onLeaseChanged" | "onAttempt" | "onRateLimited";

/** The options with every default filled in. */
export type DrainerSettings = Required<Omit<DrainerOptions, Hooks>> & Pick<DrainerOptions, Hooks>;

export function drainerSettings(opts: DrainerOptions): DrainerSettings {
  return {
    batchSize: 20,
    lockMs: DEFAULT_LOCK_MS,
    maxAttempts: 8,
    backoffMs: 1000,
    maxBackoffMs: 5 * 60_000,
    pollMs: 1000,
    stopGraceMs: 5000,
    random: Math.random,
    owner: `${hostname()}/${process.pid}/${randomUUID()}`,
    labelLockMs: DEFAULT_LOCK_MS,
    maxLedgerBackoffMs: 10_000,
    budget: null,
    minPauseMs: 60_000,
    sendEvent: null,
    writes: "graphql",
    nodeIds: null,
    labelLingerMs: DEFAULT_LABEL_LINGER_MS,
    ...opts,
  };
}
