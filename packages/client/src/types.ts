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

export type LeaseOutcome = "acquired" | "renewed" | "released" | "status" | "held" | "not_holder";

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
}

/** What `status` answers: the live lease (outcome `status`, holder null when free) and the recent tenures. */
export interface LeaseStatus extends LeaseAnswer {
  tenures?: Tenure[];
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

export interface ClaimOptions extends WriteOptions {
  /** How long the lease lasts; default the repository's `default_ttl`. */
  ttl?: Ttl;
  /** A short name for this worker: two instances of one account are two holders. */
  instance?: string;
}

export type RenewOptions = ClaimOptions;

export interface ReleaseOptions extends WriteOptions {
  /** The instance the lease was claimed with. */
  instance?: string;
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
