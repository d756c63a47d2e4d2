/**
 * `withLease` (and `withNextLease`): a lease held while a function runs, as etcd's concurrency
 * session and client-go's leader election hold theirs. It claims, renews in
 * the background every third of the TTL, hands the function an
 * `AbortSignal` that is aborted as soon as the lease is lost, and releases
 * when the function settles.
 *
 * The lease is lost when a renewal is refused (someone ended it: a
 * maintainer's `/release @bot`, an operator, the issue closed), or when
 * renewals keep failing until the lease's expiry has passed. The expiry is
 * counted on the client's clock from when each claim or renewal was sent, so
 * a client whose clock lags the server's does not renew too late. Beside
 * the renewals, the app's event stream is watched (lease-watch.ts), so that
 * an end the app knows of stops the work at once, not at the next renewal.
 */
import { LeaseApiError, LeaseConflictError, LeaseLostError, LeaseNotHolderError, type LostReason } from "./errors.js";
import { MAX_TIMER_MS, newIdempotencyKey, pause } from "./http.js";
import { formatRef, type ParsedRef, parseRef } from "./issue-ref.js";
import { type Ended, type WatchCalls, watchLease, type WatchState } from "./lease-watch.js";
import { ttlMs } from "./ttl.js";
import type { IssueRef, LeaseAnswer, NextFilters, NextScope, Ttl } from "./types.js";

/** The calls `withLease` makes: a `LeaseClient` (without `events` and `verify`, renewals alone notice a lost lease). */
export interface LeaseCalls extends Partial<WatchCalls> {
  claim(ref: IssueRef, options: { ttl?: Ttl; instance?: string; signal?: AbortSignal }): Promise<LeaseAnswer>;
  renew(ref: IssueRef, options: { ttl?: Ttl; instance?: string; signal?: AbortSignal; idempotencyKey?: string }): Promise<LeaseAnswer>;
  release(ref: IssueRef, options: { instance?: string }): Promise<LeaseAnswer>;
}

/** The call `withNextLease` takes its lease with: a `LeaseClient`'s `next`. */
export interface NextCall {
  next(scope: NextScope, filters: NextFilters, options: { ttl?: Ttl; instance?: string; signal?: AbortSignal }): Promise<LeaseAnswer>;
}

export interface WithLeaseOptions {
  /** How long each claim and renewal lasts (`"30m"`, or milliseconds); default the repository's `default_ttl`. */
  ttl?: Ttl;
  /** This worker's name: instances of one account exclude each other. */
  instance?: string;
  /**
   * Renew at least this often (ms), to notice a lost lease sooner than a
   * third of the TTL (a heartbeat posts nothing on GitHub). Needed to notice
   * anything on an open-ended lease.
   */
  renewEveryMs?: number;
  /** Aborting it aborts the function's signal too (with its reason); the lease is released when the function settles. */
  signal?: AbortSignal;
  /**
   * Told of failures that do not end anything by themselves: a renewal that
   * failed and will be tried again until the expiry, a release that failed
   * (the lease then ends at its expiry).
   */
  onError?: (error: unknown, during: "renew" | "release") => void;
  /**
   * Watch the app's event stream (`GET /api/v1/events`) for the lease's end,
   * to abort at once rather than at the next renewal (default true). When
   * the stream is down or the app has none, renewals alone notice, and the
   * stream is tried again in the background. false: renewals alone.
   */
  watch?: boolean;
  /** Told when the watch's stream opens or goes down (the error, and when it is tried again): for a debug log. Nothing else is told. */
  onWatch?: (state: WatchState) => void;
}

/** The lease `withLease` holds: the claim's answer, its `expires_at` kept current by the renewals. */
export type HeldLease = LeaseAnswer;

/** Renewal failures back off from this to a third of the period, until the expiry. */
const RETRY_FLOOR_MS = 100;

export async function withLease<T>(
  client: LeaseCalls,
  ref: IssueRef,
  options: WithLeaseOptions,
  fn: (lease: HeldLease, signal: AbortSignal) => Promise<T> | T,
): Promise<T> {
  const parsed = parseRef(ref);
  const { ttl, instance, signal } = options;
  return holdWhile(client, options, async () => ({ ref: parsed, lease: await client.claim(parsed, { ttl, instance, signal }) }), fn);
}

/**
 * `withLease` for the next ready issue: `next` takes it (rejecting with
 * `NothingReadyError` before `fn` runs when there is none), then it is held
 * exactly as `withLease` holds a claimed one; `lease.issue` says which.
 */
export async function withNextLease<T>(
  client: LeaseCalls & NextCall,
  scope: NextScope,
  filters: NextFilters,
  options: WithLeaseOptions,
  fn: (lease: HeldLease, signal: AbortSignal) => Promise<T> | T,
): Promise<T> {
  const { ttl, instance, signal } = options;
  return holdWhile(
    client,
    options,
    async () => {
      const lease = await client.next(scope, filters, { ttl, instance, signal });
      return { ref: parseRef(`${lease.repo}#${lease.issue}`), lease };
    },
    fn,
  );
}

/** Takes a lease with `take`, then renews it while `fn` runs and releases it when `fn` settles. */
async function holdWhile<T>(
  client: LeaseCalls,
  options: WithLeaseOptions,
  take: () => Promise<{ ref: ParsedRef; lease: LeaseAnswer }>,
  fn: (lease: HeldLease, signal: AbortSignal) => Promise<T> | T,
): Promise<T> {
  const { ttl, instance } = options;
  const claimedAt = Date.now();
  const { ref: parsed, lease: first } = await take();
  const lease: HeldLease = { ...first };

  const work = new AbortController();
  const stop = new AbortController();
  const onOuterAbort = () => work.abort(options.signal!.reason);
  options.signal?.addEventListener("abort", onOuterAbort, { once: true });
  if (options.signal?.aborted) onOuterAbort();
  let lost: LeaseLostError | null = null;
  // Whichever notices first: the renewals and the watch stop then.
  const lose = (error: LeaseLostError) => {
    if (lost) return;
    lost = error;
    work.abort(lost);
    stop.abort();
  };
  const heartbeat = keepAlive({
    client,
    ref: parsed,
    options,
    lease,
    expiry: expiryOf(first, claimedAt, ttl),
    stop: stop.signal,
    lose: (reason, cause) => lose(new LeaseLostError(formatRef(parsed), reason, lease.token, { cause })),
  });
  const watch = startWatch(client, parsed, lease, options, stop.signal, (how) => lose(endedError(parsed, lease, how)));

  let outcome: { ok: true; value: T } | { ok: false; error: unknown };
  try {
    outcome = { ok: true, value: await fn(lease, work.signal) };
  } catch (error) {
    outcome = { ok: false, error };
  }
  stop.abort();
  await Promise.all([heartbeat, watch]);
  options.signal?.removeEventListener("abort", onOuterAbort);

  if (!lost) {
    try {
      await client.release(parsed, { instance });
    } catch (error) {
      options.onError?.(error, "release");
    }
  }
  if (!outcome.ok) throw outcome.error;
  if (lost) throw lost;
  return outcome.value;
}

/** Watches the event stream for the lease's end, unless `watch: false` or the client cannot; never rejects. */
function startWatch(
  client: LeaseCalls,
  ref: ParsedRef,
  lease: HeldLease,
  options: WithLeaseOptions,
  stop: AbortSignal,
  ended: (how: Ended) => void,
): Promise<void> {
  const { events, verify } = client;
  if (options.watch === false || events === undefined || verify === undefined || lease.token === null) return Promise.resolve();
  const calls: WatchCalls = { events: events.bind(client), verify: verify.bind(client) };
  return watchLease({ client: calls, ref, token: lease.token, instance: options.instance, stop, onWatch: options.onWatch, ended });
}

/** The error a lease found ended by the watch is lost with: as a refused renewal would say, naming the event. */
function endedError(ref: ParsedRef, lease: HeldLease, how: Ended): LeaseLostError {
  if ("event" in how) {
    const reason = how.event.type === "lease.expired" && how.event.token === lease.token ? "expired" : "not_holder";
    return new LeaseLostError(formatRef(ref), reason, lease.token, { event: how.event });
  }
  const now = how.checked ?? { repo: `${ref.owner}/${ref.repo}`, issue: ref.issue, holder: null, token: null, expires_at: null };
  return new LeaseLostError(formatRef(ref), "not_holder", lease.token, { cause: new LeaseNotHolderError({ ...now, outcome: "not_holder" }) });
}

interface KeepAlive {
  client: LeaseCalls;
  ref: ParsedRef;
  options: WithLeaseOptions;
  lease: HeldLease;
  /** When the lease ends on the client's clock; null for an open-ended lease. */
  expiry: number | null;
  stop: AbortSignal;
  lose(reason: LostReason, cause: unknown): void;
}

/** Renews until stopped or lost; never rejects. */
async function keepAlive(k: KeepAlive): Promise<void> {
  const { client, ref, options, lease, stop } = k;
  let expiry = k.expiry;
  for (;;) {
    const period = renewPeriod(expiry, options.renewEveryMs);
    if (period === null) return;
    if (!(await pause(period, stop))) return;

    // One heartbeat: one idempotency key for all its attempts, until one
    // succeeds, the server refuses it, or the expiry passes.
    const key = newIdempotencyKey();
    const deadline = new AbortController();
    // Beyond setTimeout's range the deadline is checked by the clock after each failure instead.
    const left = expiry === null ? null : Math.max(0, expiry - Date.now());
    const timer = left === null || left > MAX_TIMER_MS ? undefined : setTimeout(() => deadline.abort(), left);
    const expired = () => deadline.signal.aborted || (expiry !== null && Date.now() >= expiry);
    const signal = AbortSignal.any([stop, deadline.signal]);
    let lastFailure: unknown = undefined;
    try {
      for (let round = 0; ; round++) {
        const sentAt = Date.now();
        try {
          const renewed = await client.renew(ref, { ttl: options.ttl, instance: options.instance, signal, idempotencyKey: key });
          Object.assign(lease, renewed);
          expiry = expiryOf(renewed, sentAt, options.ttl);
          break;
        } catch (error) {
          if (stop.aborted) return;
          if (expired()) return k.lose("expired", lastFailure ?? error);
          const refused = refusal(error);
          if (refused) return k.lose(refused, error);
          lastFailure = error;
          options.onError?.(error, "renew");
        }
        const wait = Math.min(period / 3, RETRY_FLOOR_MS * 2 ** round);
        if (!(await pause(Math.max(RETRY_FLOOR_MS, wait), signal))) {
          if (stop.aborted) return;
          return k.lose("expired", lastFailure);
        }
      }
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Why an error from a renewal means the lease is gone, or null when trying again may help. */
function refusal(error: unknown): LostReason | null {
  if (error instanceof LeaseConflictError) return "not_holder";
  // Refused by config (403), not visible or not installed any more (404), no longer a valid request (400, 422).
  if (error instanceof LeaseApiError && [400, 403, 404, 410, 422].includes(error.status)) return "refused";
  // A 401 may be an expired installation token that a token function renews: tried again until the expiry.
  return null;
}

/** When the lease ends, on the client's clock: the earlier of the server's expiry and `sentAt` plus the TTL asked for. */
function expiryOf(answer: LeaseAnswer, sentAt: number, ttl: Ttl | undefined): number | null {
  if (answer.expires_at === null) return null;
  const server = Date.parse(answer.expires_at);
  const asked = ttl === undefined ? null : ttlMs(ttl);
  const local = asked === null ? Number.NaN : sentAt + asked;
  const candidates = [server, local].filter((t) => !Number.isNaN(t));
  return candidates.length === 0 ? null : Math.min(...candidates);
}

/**
 * A third of the time left, or `renewEveryMs` when sooner, and never longer
 * than setTimeout can wait (a longer lease is renewed early, harmlessly);
 * null when there is nothing to renew.
 */
function renewPeriod(expiry: number | null, renewEveryMs: number | undefined): number | null {
  const third = expiry === null ? null : Math.max(0, (expiry - Date.now()) / 3);
  const every = renewEveryMs !== undefined && renewEveryMs > 0 ? renewEveryMs : null;
  const period = third === null ? every : every === null ? third : Math.min(third, every);
  return period === null ? null : Math.min(period, MAX_TIMER_MS);
}
