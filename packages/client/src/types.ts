/**
 * What the lease API answers, as it is on the wire (snake_case, times as
 * ISO 8601 strings in UTC), so that a `--json` print or a log line is the
 * API's own answer.
 */

/** An issue: `"owner/repo#12"`, or its parts. */
export type IssueRef = string | { owner: string; repo: string; issue: number };

export interface LeaseHolder {
  login: string;
  /** The GitHub account's numeric id. */
  id: number;
  /** The worker's name the client chose when it claimed; null for a person's comment or a claim without one. */
  instance: string | null;
}

export type LeaseOutcome = "acquired" | "renewed" | "released" | "status" | "held" | "not_holder" | "left_queue";

/**
 * One answer about an issue's lease. `holder`, `token` and `expires_at`
 * describe the live lease after the call (null when the issue is free),
 * except `released`, which names the lease that just ended.
 */
export interface LeaseAnswer {
  outcome: LeaseOutcome;
  /** `owner/repo` as GitHub spells it. */
  repo: string;
  issue: number;
  holder: LeaseHolder | null;
  /** The fencing token of the tenure. */
  token: number | null;
  /** ISO 8601; null when the issue is free or the lease is open-ended. */
  expires_at: string | null;
  /**
   * `left_queue` (a release by someone waiting in line, who leaves it): the
   * live lease, as the API answers it. The client copies its holder, token
   * and expiry above, so that they describe the live lease as for any answer.
   */
  lease?: LeaseView;
  /** `released`, when someone waited in line: they hold the lease now (a new tenure, the next token). */
  handed_to?: { holder: LeaseHolder; token: number; expires_at: string | null };
  /** An acquired claim's (and `next`'s): the issue's title, as GitHub (or the app's inventory) showed it. */
  title?: string;
  /** An acquired claim's (and `next`'s): the issue's page on GitHub. */
  url?: string;
}

/** A lease as the API shows it inside another answer (a place in line, a left line): an answer's fields but its outcome. */
export type LeaseView = Omit<LeaseAnswer, "outcome" | "lease" | "handed_to">;

/** What `status` answers: the live lease (outcome `status`, holder null when free), the recent tenures, and who waits in line. */
export interface LeaseStatus extends LeaseAnswer {
  tenures?: Tenure[];
  /** The wait list, first in line first (absent from an app without one). */
  queue?: QueuePlace[];
}

/** One place in an issue's wait list, as `status` lists it. */
export interface QueuePlace {
  login: string;
  id: number;
  instance: string | null;
  /** 1 for the first in line. */
  position: number;
  /** When the place was taken (ISO 8601). */
  queued_at: string;
  /** When the place ends unless its holder asks again (ISO 8601). */
  until: string;
}

/** What a claim with `?wait=true` answers (202) on an issue someone else holds: the caller's place in line. */
export interface QueuedAnswer {
  outcome: "queued";
  repo: string;
  issue: number;
  /** 1 for the first in line. */
  position: number;
  /** When the place ends unless the caller asks again (ISO 8601): `waitForLease` asks again before. */
  queued_until: string;
  /** The live lease the caller waits for. */
  lease: LeaseView;
}

/** A past or current tenure of an issue, as `status` lists them (the last ten, oldest first). */
export interface Tenure {
  holder: LeaseHolder;
  token: number;
  /** When the tenure began (ISO 8601). */
  from: string;
  /** When it ended, or null while it is live. */
  to: string | null;
  /** How it ended (`released`, `expired`, …), or that it is live. */
  ended: string;
}

/** A live lease as `GET /api/v1/leases` lists it (the board's listing): `mine` answers these. */
export interface ListedLease {
  repo: string;
  issue: number;
  holder: { login: string; id: number; instance?: string | null };
  token: number;
  /** ISO 8601; null when open-ended. */
  expires_at: string | null;
  acquired_at?: string;
  title?: string | null;
  url?: string;
  labels?: string[];
  [field: string]: unknown;
}

/** What `verify` answers: whether the token is the live one, held by the caller. */
export type VerifyResult = { valid: true; lease?: LeaseAnswer } | { valid: false; lease: LeaseAnswer | null };

/** A duration as the API takes it (`"30m"`, `"2h"`, `"3d"`), or milliseconds (sent as whole seconds, rounded up). */
export type Ttl = string | number;

export interface WriteOptions {
  /** Sent as `Idempotency-Key`; by default a new random key per call, kept across that call's retries. */
  idempotencyKey?: string;
  /** Cancels the call (and its retries). */
  signal?: AbortSignal;
  /** Retries for this call, instead of the client's `retry.retries`. */
  retries?: number;
}

export interface RenewOptions extends WriteOptions {
  /** How long the lease lasts; default the repository's `default_ttl`. */
  ttl?: Ttl;
  /** A short name for this worker: two instances of one account are two holders. */
  instance?: string;
}

export interface ClaimOptions extends RenewOptions {
  /** A line for the people reading the issue (at most 200 characters), shown in the app's reply to a claim that takes the lease. */
  note?: string;
}

/**
 * Which issue `next` takes: the first open issue that matches, is free and
 * has nobody waiting, in `order` (oldest first by default). Sent as the
 * body's snake_case fields (`any_labels`, …); label names are compared as
 * GitHub does, ignoring case.
 */
export interface NextFilters {
  /** All of these labels. */
  labels?: string[];
  /** At least one of these labels. */
  anyLabels?: string[];
  /** None of these labels. */
  excludeLabels?: string[];
  /** The milestone's title. */
  milestone?: string;
  /** Issues with `order[0]` first, then `order[1]`, …, then the rest; oldest first within each. */
  order?: string[];
  /** `none`: unassigned only; default `none_or_me`: unassigned or assigned to the caller. */
  assignee?: "none" | "none_or_me";
  /** Also issues that an open pull request closes (skipped by default). */
  includeWithPulls?: boolean;
  /** Also issues blocked by an open issue (skipped by default). */
  includeBlocked?: boolean;
}

/** Where `next` looks: one repository (`"owner/repo"` or `{ owner, repo }`), or every repository of an owner the app serves. */
export type NextScope = string | { owner: string; repo: string } | { org: string };

export type NextOptions = RenewOptions;

/** A wait makes several writes, each with a key of its own: no `idempotencyKey`. */
export interface WaitOptions extends Omit<ClaimOptions, "idempotencyKey" | "note"> {
  /** Give up after this long (ms): the place in line is left and the call rejects with `LeaseWaitTimeoutError`. Default: wait until `signal`. */
  timeoutMs?: number;
  /** The first pause between two status polls (default 1 s); it doubles while nothing changes, up to `maxPollMs`. */
  pollMs?: number;
  /** The longest pause between two polls (default 30 s). */
  maxPollMs?: number;
  /** Told of each answer that puts or keeps the caller in line (its `position`, `queued_until`, the live lease). */
  onQueued?: (place: QueuedAnswer) => void;
}

export interface ReleaseOptions extends WriteOptions {
  /** The instance the lease was claimed with. */
  instance?: string;
  /** A line for the people reading the issue (at most 200 characters), shown in the app's reply to the release. */
  note?: string;
}

export interface ReadOptions {
  signal?: AbortSignal;
}

export interface VerifyOptions extends ReadOptions {
  /** The instance the lease was claimed with, when it was. */
  instance?: string;
}

export interface RetryOptions {
  /** Retries after the first attempt of a call (default 4): network errors, timeouts, 408, 429, 5xx. */
  retries?: number;
  /** The first backoff (default 250 ms); each retry doubles it, with jitter. */
  minDelayMs?: number;
  /** The longest backoff (default 10 s). */
  maxDelayMs?: number;
  /** A 429 or 503 whose `Retry-After` asks for longer than this (default 60 s) is not waited for: the call fails. */
  maxRetryAfterMs?: number;
  /** Each attempt is abandoned (and retried) after this long (default 30 s). */
  timeoutMs?: number;
}

/** A GitHub token: a string, or a function that returns the current one (installation tokens expire after an hour). */
export type TokenSource = string | (() => string | Promise<string>);

export interface LeaseClientOptions {
  /** Where the app is served, e.g. `https://leases.example.com`. */
  baseUrl: string | URL;
  /**
   * Allow `http://` to a host other than this machine (localhost, 127.0.0.0/8,
   * ::1), where the token would cross the network unencrypted: refused
   * unless true. For a private network you trust.
   */
  allowHttp?: boolean;
  /** Sent as `Authorization: Bearer …`; never logged or kept beyond the call. */
  token?: TokenSource;
  /** Default the global `fetch`. */
  fetch?: typeof fetch;
  retry?: RetryOptions;
  /** Default `issue-leases-client`. */
  userAgent?: string;
}
