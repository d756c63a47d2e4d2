/**
 * `LeaseClient`: the lease API of an issue-leases app, typed, for bots and
 * agents. Every method is one API call with retries (see http.ts); every
 * write carries an `Idempotency-Key`, so a retried claim is not a second
 * claim. `withLease` holds a lease while a function runs (see with-lease.ts).
 *
 *   const client = new LeaseClient({ baseUrl: "https://leases.example.com", token: process.env.GITHUB_TOKEN });
 *   const lease = await client.claim("octo-org/widgets#12", { ttl: "30m", instance: "worker-3" });
 */
import { checkBaseUrl } from "./base-url.js";
import { LeaseApiError, LeaseHeldError, LeaseNotHolderError, LeaseRefusedError } from "./errors.js";
import { call, type CallAnswer, type CallSpec, DEFAULT_RETRY, type HttpConfig, newIdempotencyKey } from "./http.js";
import { leasePath, parseRef } from "./issue-ref.js";
import { ttlText } from "./ttl.js";
import type {
  ClaimOptions,
  IssueRef,
  LeaseAnswer,
  LeaseClientOptions,
  LeaseStatus,
  ListedLease,
  ReadOptions,
  ReleaseOptions,
  RenewOptions,
  VerifyOptions,
  VerifyResult,
} from "./types.js";
import { type HeldLease, type WithLeaseOptions, withLease } from "./with-lease.js";

/** `mine` reads at most this many pages of the listing (the board's pages hold 50 leases). */
const MAX_PAGES = 100;

export class LeaseClient {
  readonly #http: HttpConfig;

  constructor(options: LeaseClientOptions) {
    const base = checkBaseUrl(options.baseUrl, { name: "baseUrl", allowHttp: options.allowHttp === true, allowHow: "pass allowHttp: true" });
    // Paths are joined below it: "https://host/leases" serves "https://host/leases/api/v1/…".
    if (!base.pathname.endsWith("/")) base.pathname += "/";
    base.search = "";
    base.hash = "";
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== "function") throw new TypeError("no fetch: pass options.fetch (Node 18 or later has one)");
    this.#http = {
      baseUrl: base,
      token: options.token,
      fetch: fetchImpl,
      retry: { ...DEFAULT_RETRY, ...options.retry },
      userAgent: options.userAgent ?? "issue-leases-client",
    };
  }

  /** Takes the issue's lease, or extends it when the caller holds it already (same token). Throws `LeaseHeldError` when someone else holds it. */
  async claim(ref: IssueRef, options: ClaimOptions = {}): Promise<LeaseAnswer> {
    return this.#write("POST", ref, { body: leaseBody(options), ...options });
  }

  /** The heartbeat: extends the caller's live lease from now (same token). Throws `LeaseNotHolderError` when the caller does not hold it. */
  async renew(ref: IssueRef, options: RenewOptions = {}): Promise<LeaseAnswer> {
    return this.#write("PATCH", ref, { body: leaseBody(options), ...options });
  }

  /** Ends the caller's lease; succeeds when the caller holds nothing. Throws `LeaseNotHolderError` when someone else holds it. */
  async release(ref: IssueRef, options: ReleaseOptions = {}): Promise<LeaseAnswer> {
    return this.#write("DELETE", ref, { query: { instance: options.instance }, ...options });
  }

  /** The live lease (holder null when the issue is free) and the recent tenures. */
  async status(ref: IssueRef, options: ReadOptions = {}): Promise<LeaseStatus> {
    const path = leasePath(parseRef(ref));
    const answer = await this.#call({ method: "GET", path, signal: options.signal });
    if (answer.status === 200) return leaseAnswer(answer) as LeaseStatus;
    throw apiError(answer);
  }

  /**
   * Whether `token` is the issue's live token, held by the caller (with
   * `instance`, by that instance): ask just before a side effect (a push,
   * a merge) that only the holder may make. Not an error when it is not:
   * `{ valid: false, lease }` names who holds it now.
   */
  async verify(ref: IssueRef, token: number, options: VerifyOptions = {}): Promise<VerifyResult> {
    if (!Number.isSafeInteger(token) || token < 1) throw new TypeError(`not a lease token: ${String(token)}`);
    const path = `${leasePath(parseRef(ref))}/verify`;
    const body: Record<string, unknown> = { token };
    if (options.instance !== undefined) body.instance = options.instance;
    // Changes nothing, so retried without an idempotency key: a retry reads the lease as it is then.
    const answer = await this.#call({ method: "POST", path, body, signal: options.signal });
    const json = answer.json as { valid?: unknown; lease?: unknown } | null;
    if ((answer.status === 200 || answer.status === 409) && typeof json?.valid === "boolean") {
      return json.valid
        ? { valid: true, ...(json.lease ? { lease: json.lease as LeaseAnswer } : {}) }
        : { valid: false, lease: (json.lease as LeaseAnswer | undefined) ?? null };
    }
    throw apiError(answer);
  }

  /**
   * The caller's live leases, in every repository the app serves
   * (`GET /api/v1/leases?holder=@me`, page after page).
   */
  async mine(options: ReadOptions = {}): Promise<ListedLease[]> {
    const all: ListedLease[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const answer = await this.#call({
        method: "GET",
        path: "api/v1/leases",
        query: { holder: "@me", ...(page > 1 ? { page: String(page) } : {}) },
        signal: options.signal,
      });
      if (answer.status !== 200) throw apiError(answer);
      const json = answer.json as { leases?: unknown; next?: unknown } | null;
      if (!Array.isArray(json?.leases)) throw unexpected(answer);
      all.push(...(json.leases as ListedLease[]));
      if (typeof json.next !== "string" || json.leases.length === 0) break;
    }
    return all;
  }

  /**
   * Claims the issue, runs `fn` while renewing in the background every
   * third of the TTL, and releases when `fn` settles (also when it throws).
   * `signal` is aborted with a `LeaseLostError` as soon as the lease is
   * lost: a renewal refused, or renewals failing until the expiry has
   * passed. Resolves to `fn`'s value; rejects with `fn`'s error, or with
   * the `LeaseLostError` when the lease was lost before `fn` returned.
   */
  withLease<T>(ref: IssueRef, options: WithLeaseOptions, fn: (lease: HeldLease, signal: AbortSignal) => Promise<T> | T): Promise<T> {
    return withLease(this, ref, options, fn);
  }

  async #write(
    method: "POST" | "PATCH" | "DELETE",
    ref: IssueRef,
    spec: Pick<CallSpec, "body" | "query" | "signal" | "retries"> & { idempotencyKey?: string },
  ): Promise<LeaseAnswer> {
    const path = leasePath(parseRef(ref));
    const answer = await this.#call({
      method,
      path,
      body: spec.body,
      query: spec.query,
      signal: spec.signal,
      retries: spec.retries,
      idempotencyKey: spec.idempotencyKey ?? newIdempotencyKey(),
    });
    if (answer.status === 200) return leaseAnswer(answer);
    throw apiError(answer);
  }

  #call(spec: CallSpec): Promise<CallAnswer> {
    return call(this.#http, spec);
  }
}

function leaseBody(options: ClaimOptions): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (options.ttl !== undefined) body.ttl = ttlText(options.ttl);
  if (options.instance !== undefined) body.instance = options.instance;
  return body;
}

function isLeaseAnswer(json: unknown): json is LeaseAnswer {
  const j = json as Partial<LeaseAnswer> | null;
  return typeof j === "object" && j !== null && typeof j.outcome === "string" && typeof j.issue === "number";
}

function leaseAnswer(answer: CallAnswer): LeaseAnswer {
  if (!isLeaseAnswer(answer.json)) throw unexpected(answer);
  return answer.json;
}

/** The typed error for an answer that is not a success. */
function apiError(answer: CallAnswer): LeaseApiError {
  const { status, json } = answer;
  if (status === 409 && isLeaseAnswer(json)) {
    if (json.outcome === "held") return new LeaseHeldError(json);
    if (json.outcome === "not_holder") return new LeaseNotHolderError(json);
  }
  const body = json as { error?: { code?: unknown; message?: unknown; reason?: unknown }; reason?: unknown } | null;
  const code = typeof body?.error?.code === "string" ? body.error.code : `http_${status}`;
  const message = typeof body?.error?.message === "string" ? body.error.message : null;
  if (status === 403) {
    const reason = [body?.reason, body?.error?.reason].find((r) => typeof r === "string") as string | undefined;
    return new LeaseRefusedError(message ?? `refused${reason ? `: ${reason}` : ""}`, code, reason ?? null, json);
  }
  if (status >= 300 && status < 400) {
    return new LeaseApiError(`the API answered a redirect (${status}) to ${answer.location ?? "?"}: use that as the base URL`, status, "redirect", json);
  }
  if (message === null) return unexpected(answer);
  return new LeaseApiError(message, status, code, json);
}

function unexpected(answer: CallAnswer): LeaseApiError {
  return new LeaseApiError(
    `unexpected answer from the lease API (HTTP ${answer.status}): is the base URL an issue-leases app?`,
    answer.status,
    `http_${answer.status}`,
    answer.json,
  );
}
