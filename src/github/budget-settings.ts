/**
 * GitHub's budget's settings (budget.ts): GitHub's documented secondary
 * limits as defaults, and what each kind of request costs. The environment
 * variables that lower them are read in settings/github-settings.ts.
 */

/** 0: replies to commands; 1: expiry and reminder notices; 2: label-only work. The outbox's `priority`. */
export type Tier = 0 | 1 | 2;

export interface BudgetSettings {
  /** Content-generating requests (POST, GraphQL mutations) a minute; GitHub's limit is 80. */
  contentPerMinute: number;
  /** Content-generating requests an hour; GitHub's limit is 500. */
  contentPerHour: number;
  /** Points a minute (a write 5, a read 1); GitHub's REST limit is 900. */
  pointsPerMinute: number;
  /** Requests in flight at once; GitHub's limit is 100. */
  concurrency: number;
  /** The windows' lengths (tests shrink them with the rest of GitHub's pacing). */
  minuteMs: number;
  hourMs: number;
  /** Real time by default: the windows are GitHub's, whatever clock the ledger is given. */
  clock: () => number;
  /** The part of each window a tier leaves to the tiers above it (replies to commands: none). */
  reserves: Record<Tier, number>;
}

export const DEFAULT_BUDGET: BudgetSettings = {
  contentPerMinute: 80,
  contentPerHour: 500,
  pointsPerMinute: 800,
  concurrency: 50,
  minuteMs: 60_000,
  hourMs: 3_600_000,
  clock: Date.now,
  reserves: { 0: 0, 1: 0.01, 2: 0.03 },
};

export interface Cost {
  /** Creates something on GitHub (a POST or a mutation): counted against the content limits. */
  content: boolean;
  points: number;
}

export const READ: Cost = { content: false, points: 1 };
export const WRITE: Cost = { content: false, points: 5 };
export const CONTENT: Cost = { content: true, points: 5 };

/** LABEL_LINGER_S's default: a day. */
export const DEFAULT_LABEL_LINGER_MS = 24 * 3_600_000;

/** How an effect's writes go to GitHub: one GraphQL document per effect, or one REST request per write. */
export type GithubWrites = "graphql" | "rest";
