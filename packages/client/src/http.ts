/**
 * One API call with retries: transient failures (network errors, attempts
 * that time out, 408, 429, 5xx) are tried again after a backoff that
 * doubles with jitter, or after the `Retry-After` the server asked for.
 * A write carries one `Idempotency-Key` through all its attempts, so a
 * claim whose answer was lost is answered again by the server, not made
 * twice. Only `fetch`, `setTimeout` and `AbortController`: nothing else of
 * Node.
 */
import { LeaseUnavailableError } from "./errors.js";
import type { RetryOptions, TokenSource } from "./types.js";

export interface HttpConfig {
  baseUrl: URL;
  token: TokenSource | undefined;
  fetch: typeof fetch;
  retry: Required<RetryOptions>;
  userAgent: string;
}

export interface CallSpec {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Relative to the base URL, without a leading slash. */
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  /** Sent with every attempt of this call. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** Overrides the client's retry count (the heartbeat retries until its deadline). */
  retries?: number;
}

export interface CallAnswer {
  status: number;
  /** The parsed JSON body, or null when there was none or it was not JSON. */
  json: unknown;
  /** The `Location` of a redirect. */
  location: string | null;
}

export const DEFAULT_RETRY: Required<RetryOptions> = {
  retries: 4,
  minDelayMs: 250,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 60_000,
  timeoutMs: 30_000,
};

const TRANSIENT = new Set([408, 429, 500, 502, 503, 504]);

/** Why an attempt is worth repeating, or null when its answer stands; `status` and `code` when the API answered. */
type Transient = { failure: unknown; retryAfterMs: number | null; status?: number; code?: string };

export async function call(config: HttpConfig, spec: CallSpec): Promise<CallAnswer> {
  const retries = spec.retries ?? config.retry.retries;
  for (let attempt = 0; ; attempt++) {
    spec.signal?.throwIfAborted();
    const outcome = await attemptOnce(config, spec);
    if (!("transient" in outcome)) return outcome;
    const { failure, retryAfterMs, status, code } = outcome.transient;
    const tooLong = retryAfterMs !== null && retryAfterMs > config.retry.maxRetryAfterMs;
    if (attempt >= retries || tooLong) {
      const attempts = attempt + 1;
      const why = tooLong ? `; it asked to wait ${Math.ceil(retryAfterMs / 1000)} s, longer than allowed` : "";
      throw new LeaseUnavailableError(
        `${spec.method} /${spec.path}: ${describeFailure(failure)} (after ${attempts} attempt${attempts === 1 ? "" : "s"}${why})`,
        attempts,
        { cause: failure, retryAfterMs, ...(status !== undefined ? { status } : {}), ...(code !== undefined ? { code } : {}) },
      );
    }
    await sleep(retryAfterMs ?? backoff(config.retry, attempt), spec.signal);
  }
}

async function attemptOnce(config: HttpConfig, spec: CallSpec): Promise<CallAnswer | { transient: Transient }> {
  const url = new URL(spec.path, config.baseUrl);
  for (const [name, value] of Object.entries(spec.query ?? {})) if (value !== undefined) url.searchParams.set(name, value);
  const headers: Record<string, string> = { accept: "application/json", "user-agent": config.userAgent };
  const token = typeof config.token === "function" ? await config.token() : config.token;
  if (token) headers.authorization = `Bearer ${token}`;
  if (spec.idempotencyKey !== undefined) headers["idempotency-key"] = spec.idempotencyKey;
  if (spec.body !== undefined) headers["content-type"] = "application/json";

  // An attempt that hangs is abandoned and retried: the key makes that safe.
  const timeout = new AbortController();
  const timer = setTimeout(
    () => timeout.abort(new Error(`no answer within ${config.retry.timeoutMs} ms`)),
    Math.min(config.retry.timeoutMs, MAX_TIMER_MS),
  );
  const signal = spec.signal ? AbortSignal.any([spec.signal, timeout.signal]) : timeout.signal;
  try {
    const res = await config.fetch(url, {
      method: spec.method,
      headers,
      body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
      signal,
      // A redirect is answered as it is (the client says where it points): following it would turn a POST into a GET.
      redirect: "manual",
    });
    const text = await res.text();
    if (TRANSIENT.has(res.status)) {
      const code = (parseJson(text) as { error?: { code?: unknown } } | null)?.error?.code;
      return {
        transient: {
          failure: new Error(`HTTP ${res.status}${errorMessage(text)}`),
          retryAfterMs: retryAfter(res.headers.get("retry-after")),
          status: res.status,
          ...(typeof code === "string" ? { code } : {}),
        },
      };
    }
    return { status: res.status, json: parseJson(text), location: res.headers.get("location") };
  } catch (error) {
    // The caller's own cancellation ends the call; anything else of the network is transient.
    if (spec.signal?.aborted) throw spec.signal.reason;
    return { transient: { failure: timeout.signal.aborted ? timeout.signal.reason : error, retryAfterMs: null } };
  } finally {
    clearTimeout(timer);
  }
}

function parseJson(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function errorMessage(text: string): string {
  const json = parseJson(text) as { error?: { message?: unknown } } | null;
  const message = json?.error?.message;
  return typeof message === "string" ? `: ${message.slice(0, 200)}` : "";
}

/** Full jitter over a doubling ceiling: retries of many clients spread out instead of arriving together. */
export function backoff(retry: Required<RetryOptions>, attempt: number): number {
  const ceiling = Math.min(retry.maxDelayMs, retry.minDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** `Retry-After` in seconds or as an HTTP date, in milliseconds; null when absent or unreadable. */
export function retryAfter(header: string | null): number | null {
  if (header === null) return null;
  const text = header.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/** setTimeout's longest wait (about 24.8 days); a longer one fires at once, with a warning. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Resolves after `ms` (at most `MAX_TIMER_MS`), or rejects with the signal's reason when it is aborted first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.min(ms, MAX_TIMER_MS));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Waits `ms`; false when `signal` was aborted first. */
export async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, signal);
    return true;
  } catch {
    return false;
  }
}

function describeFailure(failure: unknown): string {
  if (!(failure instanceof Error)) return String(failure);
  // undici hides the reason (ECONNREFUSED, …) in `cause`.
  const cause = failure.cause instanceof Error ? ` (${(failure.cause as { code?: string }).code ?? failure.cause.message})` : "";
  return `${failure.message}${cause}`;
}

/** A new random key for one logical write. */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}
