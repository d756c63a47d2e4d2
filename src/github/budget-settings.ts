/**
 * GitHub's budget's settings (budget.ts): GitHub's documented secondary
 * limits as defaults, what each kind of request costs, and the environment
 * variables that lower them.
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

function wholeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, most: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > most) throw new Error(`${name} must be a whole number from 1 to ${most}; it is "${raw}"`);
  return n;
}

/**
 * From GITHUB_CONTENT_PER_MINUTE (default 80, at most GitHub's 80) and
 * GITHUB_CONTENT_PER_HOUR (default 500, at most GitHub's 500): lower them
 * to share an installation with other apps or among replicas.
 * GITHUB_MIN_PAUSE_S (default 60): the least a secondary limit pauses an
 * installation. A wrong value ends the start, naming it.
 */
export function budgetSettings(env: NodeJS.ProcessEnv): Pick<BudgetSettings, "contentPerMinute" | "contentPerHour"> & { minPauseMs: number } {
  return {
    contentPerMinute: wholeNumber(env, "GITHUB_CONTENT_PER_MINUTE", DEFAULT_BUDGET.contentPerMinute, 80),
    contentPerHour: wholeNumber(env, "GITHUB_CONTENT_PER_HOUR", DEFAULT_BUDGET.contentPerHour, 500),
    minPauseMs: wholeNumber(env, "GITHUB_MIN_PAUSE_S", 60, 3600) * 1000,
  };
}

/** LABEL_LINGER_S's default: a day. */
export const DEFAULT_LABEL_LINGER_MS = 24 * 3_600_000;

/**
 * From LABEL_LINGER_S (default 86400, a day; 0 to 2592000): how long, on the
 * GraphQL path, a holder or token label that no live lease calls for stays
 * in the repository before it is deleted, so that the next claim that calls
 * for it adds it in its one document rather than creating it first. A wrong
 * value ends the start, naming it.
 */
export function labelLingerMs(env: NodeJS.ProcessEnv): number {
  const raw = env.LABEL_LINGER_S;
  if (raw === undefined || raw === "") return DEFAULT_LABEL_LINGER_MS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 30 * 86_400) throw new Error(`LABEL_LINGER_S must be a whole number of seconds from 0 to 2592000; it is "${raw}"`);
  return n * 1000;
}

/** How an effect's writes go to GitHub: one GraphQL document per effect, or one REST request per write. */
export type GithubWrites = "graphql" | "rest";

/**
 * From GITHUB_WRITES: `graphql` (one mutation document per command) or
 * `rest` (a request per label, assignee and reply, for a GitHub Enterprise
 * Server that lacks a mutation). Anything else ends the start, naming it.
 */
export function githubWrites(env: NodeJS.ProcessEnv, fallback: GithubWrites): GithubWrites {
  const raw = env.GITHUB_WRITES;
  if (raw === undefined || raw === "") return fallback;
  if (raw === "graphql" || raw === "rest") return raw;
  throw new Error(`GITHUB_WRITES must be "graphql" or "rest"; it is "${raw}"`);
}
