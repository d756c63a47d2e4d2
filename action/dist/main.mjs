// Built by scripts/build-action.mjs from src/action/ and packages/client/src/: do not edit. Rebuild with `npm run build:action`.

// src/action/main-step.ts
import { setTimeout as sleep2 } from "node:timers/promises";

// packages/client/src/base-url.ts
function isLoopbackHost(hostname) {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  return host === "localhost" || host.endsWith(".localhost") || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === "[::1]";
}
function checkBaseUrl(value, rules) {
  const text = String(value);
  const shown2 = JSON.stringify(text.slice(0, 200));
  let url;
  try {
    url = new URL(text);
  } catch {
    url = null;
  }
  if (url === null || url.protocol !== "http:" && url.protocol !== "https:") {
    const what = url === null ? "is not a URL" : "must be an http(s) URL";
    throw new TypeError(`${rules.name} ${what}, not ${shown2}: ${suggestion(text)}`);
  }
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname) && !rules.allowHttp) {
    throw new TypeError(
      `${rules.name} is ${url.origin}, plain http to another machine: every call would send the GitHub token unencrypted. Use https://${url.host}, or ${rules.allowHow} on a network you trust`
    );
  }
  return url;
}
function suggestion(text) {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return "write it as https://HOST (or http://localhost:PORT for this machine)";
  let host = "";
  try {
    host = new URL(`http://${text}`).hostname;
  } catch {
    return "write it as https://HOST (or http://localhost:PORT for this machine)";
  }
  return `write it as ${isLoopbackHost(host) ? "http" : "https"}://${text.slice(0, 200)}`;
}

// packages/client/src/errors.ts
var LeaseApiError = class extends Error {
  constructor(message, status, code, body) {
    super(message);
    this.status = status;
    this.code = code;
    this.body = body;
    this.name = "LeaseApiError";
  }
  status;
  code;
  body;
};
var LeaseConflictError = class extends LeaseApiError {
  constructor(message, code, lease) {
    super(message, 409, code, lease);
    this.lease = lease;
    this.holder = lease.holder;
    this.token = lease.token;
    this.expiresAt = lease.expires_at;
  }
  lease;
  /** The current holder, or null when the issue is free. */
  holder;
  /** The live tenure's fencing token, or null when the issue is free. */
  token;
  /** When the live lease expires (ISO 8601), or null when it is open-ended or the issue is free. */
  expiresAt;
};
var LeaseHeldError = class extends LeaseConflictError {
  constructor(lease) {
    super(`${lease.repo}#${lease.issue} is held by ${describeHolder(lease)}`, "held", lease);
    this.name = "LeaseHeldError";
  }
};
var LeaseWaitTimeoutError = class extends LeaseHeldError {
  constructor(lease, waitedMs, place) {
    super({ ...lease, outcome: "held" });
    this.waitedMs = waitedMs;
    this.name = "LeaseWaitTimeoutError";
    this.position = place?.position ?? null;
    const where = this.position === null ? "" : ` (${ordinal(this.position)} in line)`;
    this.message = `gave up waiting for ${lease.repo}#${lease.issue} after ${Math.round(waitedMs / 1e3)} s${where}: ${this.message}`;
  }
  waitedMs;
  /** The caller's place in line when it gave up (1: first), or null when it never got one. */
  position;
};
var NothingReadyError = class extends LeaseApiError {
  constructor(message, matched, held, body) {
    super(message, 404, "nothing_ready", body);
    this.matched = matched;
    this.held = held;
    this.name = "NothingReadyError";
  }
  matched;
  held;
};
var LeaseNotHolderError = class extends LeaseConflictError {
  constructor(lease) {
    const now = lease.holder ? `it is held by ${describeHolder(lease)}` : "it is free";
    super(`not the holder of ${lease.repo}#${lease.issue}: ${now}`, "not_holder", lease);
    this.name = "LeaseNotHolderError";
  }
};
var LeaseRefusedError = class extends LeaseApiError {
  constructor(message, code, reason, body) {
    super(message, 403, code, body);
    this.reason = reason;
    this.name = "LeaseRefusedError";
  }
  reason;
};
var LeaseUnavailableError = class extends Error {
  constructor(message, attempts, options) {
    super(message, options);
    this.attempts = attempts;
    this.name = "LeaseUnavailableError";
    this.status = options?.status ?? null;
    this.code = options?.code ?? null;
    this.retryAfterMs = options?.retryAfterMs ?? null;
  }
  attempts;
  status;
  code;
  /** What the API's last answer asked to wait (`Retry-After`, ms), e.g. a `429 rate_limited`'s; null when it said nothing. */
  retryAfterMs;
};
var LeaseLostError = class extends Error {
  constructor(ref, reason, token, options) {
    super(options?.event ? endedMessage(ref, token, options.event) : lostMessage(ref, reason, options?.cause), options);
    this.ref = ref;
    this.reason = reason;
    this.token = token;
    this.name = "LeaseLostError";
    this.event = options?.event ?? null;
  }
  ref;
  reason;
  token;
  /** The stream's event that ended the lease, or null when a renewal (or the check when the stream opened) found it lost. */
  event;
};
function lostMessage(ref, reason, cause) {
  const why = cause instanceof Error ? `: ${cause.message}` : "";
  if (reason === "expired") return `lost the lease on ${ref}: renewals failed until it expired${why}`;
  return `lost the lease on ${ref}${why}`;
}
function endedMessage(ref, token, event) {
  const by = event.actor ? ` by ${event.actor.login}` : "";
  let what;
  if (token !== null && event.token > token) what = `a later lease began (token ${event.token}, ${event.holder.login})`;
  else if (event.type === "lease.expired" || event.cause === "expiry") what = "it expired";
  else if (event.type === "lease.handed_off" || event.cause === "handoff") what = "it was handed to the next in line";
  else if (event.cause === "maintainer") what = `it was released${by}, a maintainer`;
  else if (event.cause === "close") what = `it ended: the issue was closed${by}`;
  else if (event.cause === "label_removed") what = `it ended: the claimed label was removed${by}`;
  else what = `it was released${by}`;
  return `lost the lease on ${ref}: the app's event stream says ${what} (${event.type})`;
}
function describeHolder(lease) {
  if (!lease.holder) return "nobody";
  const who = lease.holder.instance ? `${lease.holder.login} (instance ${lease.holder.instance})` : lease.holder.login;
  const until = lease.expires_at ? `, until ${lease.expires_at}` : "";
  return `${who} with token ${lease.token ?? "?"}${until}`;
}
function ordinal(n) {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? "th" : ["th", "st", "nd", "rd"][n % 10] ?? "th";
  return `${n}${suffix}`;
}

// packages/client/src/http.ts
var DEFAULT_RETRY = {
  retries: 4,
  minDelayMs: 250,
  maxDelayMs: 1e4,
  maxRetryAfterMs: 6e4,
  timeoutMs: 3e4
};
var TRANSIENT = /* @__PURE__ */ new Set([408, 429, 500, 502, 503, 504]);
async function call(config, spec) {
  const retries = spec.retries ?? config.retry.retries;
  for (let attempt = 0; ; attempt++) {
    spec.signal?.throwIfAborted();
    const outcome = await attemptOnce(config, spec);
    if (!("transient" in outcome)) return outcome;
    const { failure, retryAfterMs, status, code } = outcome.transient;
    const tooLong = retryAfterMs !== null && retryAfterMs > config.retry.maxRetryAfterMs;
    if (attempt >= retries || tooLong) {
      const attempts = attempt + 1;
      const why = tooLong ? `; it asked to wait ${Math.ceil(retryAfterMs / 1e3)} s, longer than allowed` : "";
      throw new LeaseUnavailableError(
        `${spec.method} /${spec.path}: ${describeFailure(failure)} (after ${attempts} attempt${attempts === 1 ? "" : "s"}${why})`,
        attempts,
        { cause: failure, retryAfterMs, ...status !== void 0 ? { status } : {}, ...code !== void 0 ? { code } : {} }
      );
    }
    await sleep(retryAfterMs ?? backoff(config.retry, attempt), spec.signal);
  }
}
async function attemptOnce(config, spec) {
  const url = new URL(spec.path, config.baseUrl);
  for (const [name, value] of Object.entries(spec.query ?? {})) if (value !== void 0) url.searchParams.set(name, value);
  const headers = { accept: "application/json", "user-agent": config.userAgent };
  const token = typeof config.token === "function" ? await config.token() : config.token;
  if (token) headers.authorization = `Bearer ${token}`;
  if (spec.idempotencyKey !== void 0) headers["idempotency-key"] = spec.idempotencyKey;
  if (spec.body !== void 0) headers["content-type"] = "application/json";
  const timeout = new AbortController();
  const timer = setTimeout(
    () => timeout.abort(new Error(`no answer within ${config.retry.timeoutMs} ms`)),
    Math.min(config.retry.timeoutMs, MAX_TIMER_MS)
  );
  const signal = spec.signal ? AbortSignal.any([spec.signal, timeout.signal]) : timeout.signal;
  try {
    const res = await config.fetch(url, {
      method: spec.method,
      headers,
      body: spec.body === void 0 ? void 0 : JSON.stringify(spec.body),
      signal,
      // A redirect is answered as it is (the client says where it points): following it would turn a POST into a GET.
      redirect: "manual"
    });
    const text = await res.text();
    if (TRANSIENT.has(res.status)) {
      const code = parseJson(text)?.error?.code;
      return {
        transient: {
          failure: new Error(`HTTP ${res.status}${errorMessage(text)}`),
          retryAfterMs: retryAfter(res.headers.get("retry-after")),
          status: res.status,
          ...typeof code === "string" ? { code } : {}
        }
      };
    }
    return { status: res.status, json: parseJson(text), location: res.headers.get("location") };
  } catch (error2) {
    if (spec.signal?.aborted) throw spec.signal.reason;
    return { transient: { failure: timeout.signal.aborted ? timeout.signal.reason : error2, retryAfterMs: null } };
  } finally {
    clearTimeout(timer);
  }
}
function parseJson(text) {
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
function errorMessage(text) {
  const json = parseJson(text);
  const message = json?.error?.message;
  return typeof message === "string" ? `: ${message.slice(0, 200)}` : "";
}
function backoff(retry, attempt) {
  const ceiling = Math.min(retry.maxDelayMs, retry.minDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + Math.random() * ceiling / 2);
}
function retryAfter(header) {
  if (header === null) return null;
  const text = header.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1e3;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}
var MAX_TIMER_MS = 2 ** 31 - 1;
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.min(ms, MAX_TIMER_MS));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
async function pause(ms, signal) {
  try {
    await sleep(ms, signal);
    return true;
  } catch {
    return false;
  }
}
function describeFailure(failure) {
  if (!(failure instanceof Error)) return String(failure);
  const cause = failure.cause instanceof Error ? ` (${failure.cause.code ?? failure.cause.message})` : "";
  return `${failure.message}${cause}`;
}
function newIdempotencyKey() {
  return globalThis.crypto.randomUUID();
}

// packages/client/src/sse-parser.ts
var MAX_EVENT_CHARS = 1 << 20;
var SseParser = class {
  /** The last event id as of the last blank line: what a reconnect sends as `Last-Event-ID`. */
  lastEventId;
  #line = "";
  /** The last chunk ended in CR: an LF first in the next one ends no second line. */
  #afterCr = false;
  #data = "";
  #event = "";
  #id;
  /** `lastEventId`: the id a reconnect resumed from, kept until the stream sends another. */
  constructor(lastEventId = "") {
    this.lastEventId = lastEventId;
    this.#id = lastEventId;
  }
  /** Parses the next chunk of text; answers what it completed, in order. Throws when a line or an event's data grows past `MAX_EVENT_CHARS`. */
  feed(text) {
    const items = [];
    let start = 0;
    if (this.#afterCr && text.startsWith("\n")) start = 1;
    this.#afterCr = false;
    for (let i = start; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      const line = this.#line + text.slice(start, i);
      this.#line = "";
      this.#take(line, items);
      if (c === 13) {
        if (i + 1 === text.length) this.#afterCr = true;
        else if (text.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
    }
    this.#line += text.slice(start);
    if (this.#line.length > MAX_EVENT_CHARS) throw new Error(`a line of the event stream is longer than ${MAX_EVENT_CHARS} characters`);
    return items;
  }
  #take(line, items) {
    if (line === "") return this.#dispatch(items);
    if (line.startsWith(":")) {
      items.push({ kind: "comment", text: line.slice(line.startsWith(": ") ? 2 : 1) });
      return;
    }
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "event":
        this.#event = value;
        break;
      case "data":
        this.#data += `${value}
`;
        if (this.#data.length > MAX_EVENT_CHARS) throw new Error(`an event's data is longer than ${MAX_EVENT_CHARS} characters`);
        break;
      case "id":
        if (!value.includes("\0")) this.#id = value;
        break;
      case "retry":
        if (/^\d+$/.test(value)) items.push({ kind: "retry", ms: Number(value) });
        break;
      default:
    }
  }
  #dispatch(items) {
    this.lastEventId = this.#id;
    const data = this.#data;
    const event = this.#event;
    this.#data = "";
    this.#event = "";
    if (data === "") return;
    items.push({ kind: "event", event: event === "" ? "message" : event, data: data.slice(0, -1), lastEventId: this.lastEventId });
  }
};

// packages/client/src/event-stream.ts
var DEFAULT_IDLE_MS = 45e3;
var DEFAULT_MIN_DELAY_MS = 1e3;
var DEFAULT_MAX_DELAY_MS = 3e4;
var GAP_EVENT = "stream.gap";
var TRANSIENT2 = /* @__PURE__ */ new Set([408, 429, 500, 502, 503, 504]);
function eventsPath(filter) {
  const query = {};
  if (filter.repo !== void 0) {
    const repo = typeof filter.repo === "string" ? filter.repo : `${filter.repo.owner}/${filter.repo.repo}`;
    if (!/^[\w.-]+\/[\w.-]+$/.test(repo)) throw new TypeError(`not a repository: ${JSON.stringify(repo.slice(0, 200))}; write it as owner/name`);
    query.repo = repo;
  }
  if (filter.holder !== void 0) {
    if (filter.holder !== "@me") throw new TypeError(`holder must be "@me", not ${JSON.stringify(String(filter.holder).slice(0, 200))}`);
    query.holder = "@me";
  }
  return { path: "api/v1/events", query };
}
async function* leaseEvents(config, filter, options = {}) {
  const { path, query } = eventsPath(filter);
  const url = new URL(path, config.baseUrl);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  const outer = options.signal;
  const idleMs = Math.min(Math.max(1, options.idleTimeoutMs ?? DEFAULT_IDLE_MS), MAX_TIMER_MS);
  const maxDelay = Math.max(1, options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS);
  let baseDelay = Math.max(1, options.minDelayMs ?? DEFAULT_MIN_DELAY_MS);
  let lastId = options.lastEventId ?? "";
  let failures = 0;
  while (!outer?.aborted) {
    const connection = new AbortController();
    const stop = () => connection.abort(outer?.reason);
    outer?.addEventListener("abort", stop, { once: true });
    let idle;
    const awake = () => {
      clearTimeout(idle);
      idle = setTimeout(() => connection.abort(new Error(`the event stream sent nothing for ${Math.round(idleMs / 1e3)} s`)), idleMs);
    };
    let asked = null;
    let failure;
    try {
      awake();
      const res = await connect(config, url, lastId, connection.signal);
      if (res.status !== 200) {
        const text = await res.text().catch(() => "");
        if (!TRANSIENT2.has(res.status)) throw notServed(res, text);
        asked = retryAfter(res.headers.get("retry-after"));
        throw new Error(`the event stream answered HTTP ${res.status}`);
      }
      const type = res.headers.get("content-type") ?? "";
      if (!/^text\/event-stream\b/i.test(type) || res.body === null) {
        await res.body?.cancel().catch(() => void 0);
        throw new LeaseApiError(
          `${url.pathname} answered ${type || "no content type"}, not text/event-stream: does this app serve lease events?`,
          200,
          "not_event_stream",
          null
        );
      }
      failures = 0;
      options.onOpen?.({ lastEventId: lastId === "" ? null : lastId });
      const parser = new SseParser(lastId);
      const decoder = new TextDecoder();
      const reader = res.body.getReader();
      try {
        for (; ; ) {
          const { done, value } = await reader.read();
          if (done) break;
          awake();
          for (const item of parser.feed(decoder.decode(value, { stream: true }))) {
            if (item.kind === "retry") baseDelay = Math.max(1, item.ms);
            if (item.kind !== "event") continue;
            lastId = item.lastEventId;
            if (item.event === GAP_EVENT) {
              options.onGap?.(gapOf(item.data));
              continue;
            }
            const event = leaseEvent(item.event, item.data);
            if (event) yield event;
          }
          lastId = parser.lastEventId;
        }
      } finally {
        reader.cancel().catch(() => void 0);
      }
      failure = new Error("the event stream ended");
    } catch (error2) {
      if (outer?.aborted) return;
      if (error2 instanceof LeaseApiError) throw error2;
      failure = connection.signal.aborted && connection.signal.reason instanceof Error ? connection.signal.reason : error2;
      failures++;
    } finally {
      clearTimeout(idle);
      outer?.removeEventListener("abort", stop);
      connection.abort();
    }
    const delay = Math.max(asked ?? 0, backoff2(baseDelay, maxDelay, failures));
    options.onError?.(failure, delay);
    try {
      await sleep(delay, outer);
    } catch {
      return;
    }
  }
}
async function connect(config, url, lastId, signal) {
  const headers = { accept: "text/event-stream", "cache-control": "no-cache", "user-agent": config.userAgent };
  const token = typeof config.token === "function" ? await config.token() : config.token;
  if (token) headers.authorization = `Bearer ${token}`;
  if (lastId !== "") headers["last-event-id"] = lastId;
  return config.fetch(url, { method: "GET", headers, signal, redirect: "manual" });
}
function backoff2(base, max, failures) {
  const ceiling = Math.min(max, base * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling / 2 + Math.random() * ceiling / 2);
}
function notServed(res, text) {
  let json = null;
  try {
    json = text === "" ? null : JSON.parse(text);
  } catch {
    json = null;
  }
  const error2 = json?.error;
  const code = typeof error2?.code === "string" ? error2.code : `http_${res.status}`;
  const said = typeof error2?.message === "string" ? `: ${error2.message.slice(0, 200)}` : "";
  const what = res.status === 404 ? "not found (an app without lease events?)" : res.status >= 300 && res.status < 400 ? `a redirect to ${res.headers.get("location") ?? "?"}` : `HTTP ${res.status}`;
  return new LeaseApiError(`the event stream answered ${what}${said}`, res.status, code, json);
}
function leaseEvent(type, data) {
  if (!type.startsWith("lease.")) return null;
  let json;
  try {
    json = JSON.parse(data);
  } catch {
    return null;
  }
  const e = json;
  if (typeof e !== "object" || e === null) return null;
  if (typeof e.repo !== "string" || typeof e.issue !== "number" || typeof e.token !== "number" || typeof e.type !== "string") return null;
  if (typeof e.holder !== "object" || e.holder === null) return null;
  return e;
}
function gapOf(data) {
  let json = null;
  try {
    json = JSON.parse(data);
  } catch {
    json = null;
  }
  const text = (v) => typeof v === "string" ? v : "";
  return { after: text(json?.after), reason: text(json?.reason), message: text(json?.message) };
}

// packages/client/src/issue-ref.ts
var OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
var REPO = /^[A-Za-z0-9._-]{1,100}$/;
var TEXT = /^([^/#\s]+)\/([^/#\s]+)#([0-9]{1,15})$/;
function parseRef(ref) {
  let parts;
  if (typeof ref === "string") {
    const m = TEXT.exec(ref.trim());
    if (!m) throw badRef(ref);
    parts = { owner: m[1], repo: m[2], issue: Number(m[3]) };
  } else if (ref !== null && typeof ref === "object") {
    parts = ref;
  } else {
    throw badRef(ref);
  }
  const { owner, repo, issue } = parts;
  if (typeof owner !== "string" || typeof repo !== "string" || !OWNER.test(owner) || !REPO.test(repo) || repo === "." || repo === ".." || typeof issue !== "number" || !Number.isSafeInteger(issue) || issue < 1) {
    throw badRef(ref);
  }
  return { owner, repo, issue };
}
function formatRef(ref) {
  return `${ref.owner}/${ref.repo}#${ref.issue}`;
}
function checkOwner(owner, whole) {
  if (typeof owner !== "string" || !OWNER.test(owner)) throw badName("an owner", whole);
  return owner;
}
function checkRepo(repo, whole) {
  if (typeof repo !== "string" || !REPO.test(repo) || repo === "." || repo === "..") throw badName("a repository", whole);
  return repo;
}
function badName(what, whole) {
  return new TypeError(`not ${what}: ${shown(whole)}; write a repository as "owner/repo" or { owner, repo }, an owner as { org: "owner" }`);
}
function leasePath(ref) {
  return `api/v1/repos/${encodeURIComponent(ref.owner)}/${encodeURIComponent(ref.repo)}/issues/${ref.issue}/lease`;
}
function badRef(ref) {
  return new TypeError(`not an issue: ${shown(ref)}; write it as "owner/repo#12" or { owner, repo, issue }`);
}
function shown(value) {
  try {
    return typeof value === "string" ? JSON.stringify(value.slice(0, 200)) : (JSON.stringify(value) ?? String(value)).slice(0, 200);
  } catch {
    return String(value);
  }
}

// packages/client/src/ttl.ts
var SECOND = 1e3;
var MINUTE = 60 * SECOND;
var HOUR = 60 * MINUTE;
var DAY = 24 * HOUR;
var WEEK = 7 * DAY;
var UNITS = {
  s: SECOND,
  sec: SECOND,
  secs: SECOND,
  second: SECOND,
  seconds: SECOND,
  m: MINUTE,
  min: MINUTE,
  mins: MINUTE,
  minute: MINUTE,
  minutes: MINUTE,
  h: HOUR,
  hr: HOUR,
  hrs: HOUR,
  hour: HOUR,
  hours: HOUR,
  d: DAY,
  day: DAY,
  days: DAY,
  w: WEEK,
  wk: WEEK,
  wks: WEEK,
  week: WEEK,
  weeks: WEEK
};
var PATTERN = /^(\d{1,9}(?:\.\d{1,6})?)\s{0,3}([a-z]{1,7})$/i;
function ttlMs(ttl) {
  if (typeof ttl === "number") return Number.isFinite(ttl) && ttl > 0 ? ttl : null;
  const m = PATTERN.exec(ttl.trim());
  const unit = m ? UNITS[m[2].toLowerCase()] : void 0;
  if (!m || unit === void 0) return null;
  const ms = Math.round(Number(m[1]) * unit);
  return ms > 0 ? ms : null;
}
function ttlText(ttl) {
  if (typeof ttl === "string") return ttl;
  if (!Number.isFinite(ttl) || ttl <= 0) throw new TypeError(`not a duration: ${ttl} ms`);
  return `${Math.ceil(ttl / SECOND)}s`;
}

// packages/client/src/next-request.ts
var WIRE = {
  labels: "labels",
  anyLabels: "any_labels",
  excludeLabels: "exclude_labels",
  milestone: "milestone",
  order: "order",
  assignee: "assignee",
  includeWithPulls: "include_with_pulls",
  includeBlocked: "include_blocked"
};
var LISTS = /* @__PURE__ */ new Set(["labels", "anyLabels", "excludeLabels", "order"]);
var FLAGS = /* @__PURE__ */ new Set(["includeWithPulls", "includeBlocked"]);
function nextPath(scope) {
  if (typeof scope === "object" && scope !== null && "org" in scope) {
    const org = checkOwner(scope.org, scope);
    return { path: `api/v1/orgs/${encodeURIComponent(org)}/leases/next`, name: org };
  }
  let owner;
  let repo;
  if (typeof scope === "string") {
    const parts = scope.trim().split("/");
    if (parts.length !== 2) throw badName("a repository", scope);
    [owner, repo] = parts;
  } else if (typeof scope === "object" && scope !== null) {
    ({ owner, repo } = scope);
  }
  const o = checkOwner(owner, scope);
  const r = checkRepo(repo, scope);
  return { path: `api/v1/repos/${encodeURIComponent(o)}/${encodeURIComponent(r)}/leases/next`, name: `${o}/${r}` };
}
function nextBody(filters, options) {
  if (typeof filters !== "object" || filters === null) throw new TypeError(`next's filters must be an object, e.g. { labels: ["bug"] }`);
  const body = {};
  for (const [name, value] of Object.entries(filters)) {
    if (value === void 0) continue;
    const wire = Object.hasOwn(WIRE, name) ? WIRE[name] : void 0;
    if (wire === void 0) throw new TypeError(`unknown filter ${JSON.stringify(name)}: expected ${Object.keys(WIRE).join(", ")}`);
    if (LISTS.has(name)) {
      if (!Array.isArray(value) || !value.every((v) => typeof v === "string" && v.trim() !== "")) {
        throw new TypeError(`filter ${name} must be an array of label names, e.g. ["bug"]`);
      }
    } else if (FLAGS.has(name)) {
      if (typeof value !== "boolean") throw new TypeError(`filter ${name} must be true or false`);
    } else if (name === "assignee") {
      if (value !== "none" && value !== "none_or_me") throw new TypeError(`filter assignee must be "none" or "none_or_me"`);
    } else if (typeof value !== "string" || value.trim() === "") {
      throw new TypeError(`filter ${name} must be a non-empty string`);
    }
    body[wire] = value;
  }
  if (options.ttl !== void 0) body.ttl = ttlText(options.ttl);
  if (options.instance !== void 0) body.instance = options.instance;
  return body;
}

// packages/client/src/wait-in-line.ts
var DEFAULT_POLL_MS = 1e3;
var DEFAULT_MAX_POLL_MS = 3e4;
var FALLBACK_RENEW_MS = 10 * 6e4;
async function waitForLease(client, ref, options = {}) {
  const parsed = parseRef(ref);
  const { ttl, instance } = options;
  const pollMs = Math.max(1, options.pollMs ?? DEFAULT_POLL_MS);
  const maxPollMs = Math.max(pollMs, options.maxPollMs ?? DEFAULT_MAX_POLL_MS);
  const started = Date.now();
  const timeout = new AbortController();
  const timer = options.timeoutMs === void 0 ? void 0 : setTimeout(() => timeout.abort(), Math.min(Math.max(0, options.timeoutMs), MAX_TIMER_MS));
  const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
  let place = null;
  try {
    for (; ; ) {
      const sentAt = Date.now();
      const answer = await client.claimOrQueue(parsed, { ttl, instance, signal });
      if (answer.outcome !== "queued") return answer;
      place = answer;
      options.onQueued?.(answer);
      const deadline = Math.max(renewAt(answer, sentAt), Date.now() + pollMs);
      await pollUntilChanged(client, parsed, answer, deadline, { pollMs, maxPollMs, signal });
    }
  } catch (error2) {
    if (place !== null || signal.aborted) {
      try {
        await client.release(parsed, { instance });
      } catch {
      }
    }
    if (timeout.signal.aborted && !options.signal?.aborted) {
      throw new LeaseWaitTimeoutError(place?.lease ?? freeLease(parsed), Date.now() - started, place);
    }
    if (signal.aborted && options.signal?.aborted) throw options.signal.reason;
    throw error2;
  } finally {
    clearTimeout(timer);
  }
}
function renewAt(place, sentAt) {
  const until = Date.parse(place.queued_until);
  const now = Date.now();
  if (Number.isNaN(until)) return now + FALLBACK_RENEW_MS;
  return sentAt + Math.max(0, until - now) / 2;
}
async function pollUntilChanged(client, ref, place, deadline, o) {
  for (let pause2 = o.pollMs; ; pause2 = Math.min(o.maxPollMs, pause2 * 2)) {
    const left = deadline - Date.now();
    if (left <= 0) return;
    await sleep(Math.min(left, Math.round(pause2 / 2 + Math.random() * pause2 / 2)), o.signal);
    if (Date.now() >= deadline) return;
    const now = await client.status(ref, { signal: o.signal });
    if (!sameLease(place.lease, now)) return;
  }
}
function sameLease(a, b) {
  return b.holder !== null && a.token === b.token && a.holder?.id === b.holder?.id && (a.holder?.instance ?? null) === (b.holder?.instance ?? null);
}
function freeLease(ref) {
  return { repo: `${ref.owner}/${ref.repo}`, issue: ref.issue, holder: null, token: null, expires_at: null };
}

// packages/client/src/lease-watch.ts
var RETRY_MIN_MS = 3e4;
var RETRY_MAX_MS = 10 * 6e4;
var ENDING = /* @__PURE__ */ new Set(["lease.released", "lease.expired", "lease.ended", "lease.handed_off"]);
function endsLease(event, ref, token) {
  if (event.repo.toLowerCase() !== `${ref.owner}/${ref.repo}`.toLowerCase() || event.issue !== ref.issue) return false;
  if (event.token > token) return true;
  return event.token === token && ENDING.has(event.type);
}
async function watchLease(w) {
  const filter = { repo: { owner: w.ref.owner, repo: w.ref.repo }, holder: "@me" };
  const checks = [];
  let lastEventId;
  let delay = RETRY_MIN_MS;
  try {
    while (!w.stop.aborted) {
      try {
        const events = w.client.events(filter, {
          signal: w.stop,
          ...lastEventId !== void 0 ? { lastEventId } : {},
          onOpen: (info) => {
            delay = RETRY_MIN_MS;
            w.onWatch?.({ state: "open", resumed: info.lastEventId !== null });
            if (info.lastEventId === null) checks.push(check(w));
          },
          // Events may have been missed (no longer kept, or the app does not know the id): the lease is checked.
          onGap: () => checks.push(check(w)),
          onError: (error2, retryInMs) => w.onWatch?.({ state: "down", error: error2, retryInMs })
        });
        for await (const event of events) {
          lastEventId = event.id;
          if (endsLease(event, w.ref, w.token)) return w.ended({ event });
        }
      } catch (error2) {
        if (w.stop.aborted) return;
        w.onWatch?.({ state: "down", error: error2, retryInMs: delay });
        if (!await pause(delay, w.stop)) return;
        delay = Math.min(delay * 2, RETRY_MAX_MS);
      }
    }
  } finally {
    await Promise.all(checks);
  }
}
async function check(w) {
  try {
    const answer = await w.client.verify(w.ref, w.token, { instance: w.instance, signal: w.stop });
    if (!answer.valid && !w.stop.aborted) w.ended({ checked: answer.lease });
  } catch {
  }
}

// packages/client/src/with-lease.ts
var RETRY_FLOOR_MS = 100;
async function withLease(client, ref, options, fn) {
  const parsed = parseRef(ref);
  const { ttl, instance, signal } = options;
  return holdWhile(client, options, async () => ({ ref: parsed, lease: await client.claim(parsed, { ttl, instance, signal }) }), fn);
}
async function withNextLease(client, scope, filters, options, fn) {
  const { ttl, instance, signal } = options;
  return holdWhile(
    client,
    options,
    async () => {
      const lease = await client.next(scope, filters, { ttl, instance, signal });
      return { ref: parseRef(`${lease.repo}#${lease.issue}`), lease };
    },
    fn
  );
}
async function holdWhile(client, options, take, fn) {
  const { ttl, instance } = options;
  const claimedAt = Date.now();
  const { ref: parsed, lease: first } = await take();
  const lease = { ...first };
  const work = new AbortController();
  const stop = new AbortController();
  const onOuterAbort = () => work.abort(options.signal.reason);
  options.signal?.addEventListener("abort", onOuterAbort, { once: true });
  if (options.signal?.aborted) onOuterAbort();
  let lost = null;
  const lose = (error2) => {
    if (lost) return;
    lost = error2;
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
    lose: (reason, cause) => lose(new LeaseLostError(formatRef(parsed), reason, lease.token, { cause }))
  });
  const watch = startWatch(client, parsed, lease, options, stop.signal, (how) => lose(endedError(parsed, lease, how)));
  let outcome;
  try {
    outcome = { ok: true, value: await fn(lease, work.signal) };
  } catch (error2) {
    outcome = { ok: false, error: error2 };
  }
  stop.abort();
  await Promise.all([heartbeat, watch]);
  options.signal?.removeEventListener("abort", onOuterAbort);
  if (!lost) {
    try {
      await client.release(parsed, { instance });
    } catch (error2) {
      options.onError?.(error2, "release");
    }
  }
  if (!outcome.ok) throw outcome.error;
  if (lost) throw lost;
  return outcome.value;
}
function startWatch(client, ref, lease, options, stop, ended) {
  const { events, verify } = client;
  if (options.watch === false || events === void 0 || verify === void 0 || lease.token === null) return Promise.resolve();
  const calls = { events: events.bind(client), verify: verify.bind(client) };
  return watchLease({ client: calls, ref, token: lease.token, instance: options.instance, stop, onWatch: options.onWatch, ended });
}
function endedError(ref, lease, how) {
  if ("event" in how) {
    const reason = how.event.type === "lease.expired" && how.event.token === lease.token ? "expired" : "not_holder";
    return new LeaseLostError(formatRef(ref), reason, lease.token, { event: how.event });
  }
  const now = how.checked ?? { repo: `${ref.owner}/${ref.repo}`, issue: ref.issue, holder: null, token: null, expires_at: null };
  return new LeaseLostError(formatRef(ref), "not_holder", lease.token, { cause: new LeaseNotHolderError({ ...now, outcome: "not_holder" }) });
}
async function keepAlive(k) {
  const { client, ref, options, lease, stop } = k;
  let expiry = k.expiry;
  for (; ; ) {
    const period = renewPeriod(expiry, options.renewEveryMs);
    if (period === null) return;
    if (!await pause(period, stop)) return;
    const key = newIdempotencyKey();
    const deadline = new AbortController();
    const left = expiry === null ? null : Math.max(0, expiry - Date.now());
    const timer = left === null || left > MAX_TIMER_MS ? void 0 : setTimeout(() => deadline.abort(), left);
    const expired = () => deadline.signal.aborted || expiry !== null && Date.now() >= expiry;
    const signal = AbortSignal.any([stop, deadline.signal]);
    let lastFailure = void 0;
    try {
      for (let round = 0; ; round++) {
        const sentAt = Date.now();
        try {
          const renewed = await client.renew(ref, { ttl: options.ttl, instance: options.instance, signal, idempotencyKey: key });
          Object.assign(lease, renewed);
          expiry = expiryOf(renewed, sentAt, options.ttl);
          break;
        } catch (error2) {
          if (stop.aborted) return;
          if (expired()) return k.lose("expired", lastFailure ?? error2);
          const refused = refusal(error2);
          if (refused) return k.lose(refused, error2);
          lastFailure = error2;
          options.onError?.(error2, "renew");
        }
        const wait = Math.min(period / 3, RETRY_FLOOR_MS * 2 ** round);
        if (!await pause(Math.max(RETRY_FLOOR_MS, wait), signal)) {
          if (stop.aborted) return;
          return k.lose("expired", lastFailure);
        }
      }
    } finally {
      clearTimeout(timer);
    }
  }
}
function refusal(error2) {
  if (error2 instanceof LeaseConflictError) return "not_holder";
  if (error2 instanceof LeaseApiError && [400, 403, 404, 410, 422].includes(error2.status)) return "refused";
  return null;
}
function expiryOf(answer, sentAt, ttl) {
  if (answer.expires_at === null) return null;
  const server = Date.parse(answer.expires_at);
  const asked = ttl === void 0 ? null : ttlMs(ttl);
  const local = asked === null ? Number.NaN : sentAt + asked;
  const candidates = [server, local].filter((t) => !Number.isNaN(t));
  return candidates.length === 0 ? null : Math.min(...candidates);
}
function renewPeriod(expiry, renewEveryMs) {
  const third = expiry === null ? null : Math.max(0, (expiry - Date.now()) / 3);
  const every = renewEveryMs !== void 0 && renewEveryMs > 0 ? renewEveryMs : null;
  const period = third === null ? every : every === null ? third : Math.min(third, every);
  return period === null ? null : Math.min(period, MAX_TIMER_MS);
}

// packages/client/src/lease-client.ts
var MAX_PAGES = 100;
var LeaseClient = class {
  #http;
  constructor(options) {
    const base = checkBaseUrl(options.baseUrl, { name: "baseUrl", allowHttp: options.allowHttp === true, allowHow: "pass allowHttp: true" });
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
      userAgent: options.userAgent ?? "issue-leases-client"
    };
  }
  /** Takes the issue's lease, or extends it when the caller holds it already (same token). Throws `LeaseHeldError` when someone else holds it. */
  async claim(ref, options = {}) {
    return this.#write("POST", ref, { body: leaseBody(options), ...options });
  }
  /**
   * Takes the first ready issue of a repository (`"owner/repo"`) or of an
   * owner (`{ org }`, every repository of it the app serves) that matches
   * `filters`, in one transaction on the server: answers as a claim that
   * acquired (`lease.issue` is the issue). Throws `NothingReadyError`
   * (`matched`, `held`) when no matching issue is free. One
   * `Idempotency-Key` for all attempts, so a retried `next` is answered the
   * same issue, not a second one.
   */
  async next(scope, filters = {}, options = {}) {
    const { path } = nextPath(scope);
    const body = nextBody(filters, options);
    const answer = await this.#send("POST", path, { body, ...options });
    if (answer.status === 200) return leaseAnswer(answer);
    throw apiError(answer);
  }
  /**
   * One claim that may wait (`POST …/lease?wait=true`): the lease when the
   * issue is free or the caller's (as `claim`), or the caller's place in the
   * issue's line (`outcome: "queued"`, `position`, `queued_until`) when
   * someone else holds it. Asking again keeps the place. `waitForLease`
   * does the waiting.
   */
  async claimOrQueue(ref, options = {}) {
    const path = leasePath(parseRef(ref));
    const answer = await this.#send("POST", path, { body: leaseBody(options), query: { wait: "true" }, ...options });
    if (answer.status === 202 && isQueued(answer.json)) return answer.json;
    if (answer.status === 200) return leaseAnswer(answer);
    throw apiError(answer);
  }
  /**
   * Claims the issue, waiting in its line while someone else holds it, and
   * resolves to the lease once it is the caller's (as `claim` answers it).
   * While in line it polls the status with a backoff and asks again before
   * the place's `queued_until`. `timeoutMs` or `signal` ends the wait: the
   * caller leaves the line, and it rejects with `LeaseWaitTimeoutError` (a
   * `LeaseHeldError`) or the signal's reason. See wait-in-line.ts.
   */
  waitForLease(ref, options = {}) {
    return waitForLease(this, ref, options);
  }
  /** The heartbeat: extends the caller's live lease from now (same token). Throws `LeaseNotHolderError` when the caller does not hold it. */
  async renew(ref, options = {}) {
    return this.#write("PATCH", ref, { body: leaseBody(options), ...options });
  }
  /** Ends the caller's lease; succeeds when the caller holds nothing. Throws `LeaseNotHolderError` when someone else holds it. */
  async release(ref, options = {}) {
    return this.#write("DELETE", ref, { query: { instance: options.instance, note: options.note }, ...options });
  }
  /** The live lease (holder null when the issue is free) and the recent tenures. */
  async status(ref, options = {}) {
    const path = leasePath(parseRef(ref));
    const answer = await this.#call({ method: "GET", path, signal: options.signal });
    if (answer.status === 200) return leaseAnswer(answer);
    throw apiError(answer);
  }
  /**
   * Whether `token` is the issue's live token, held by the caller (with
   * `instance`, by that instance): ask just before a side effect (a push,
   * a merge) that only the holder may make. Not an error when it is not:
   * `{ valid: false, lease }` names who holds it now.
   */
  async verify(ref, token, options = {}) {
    if (!Number.isSafeInteger(token) || token < 1) throw new TypeError(`not a lease token: ${String(token)}`);
    const path = `${leasePath(parseRef(ref))}/verify`;
    const body = { token };
    if (options.instance !== void 0) body.instance = options.instance;
    const answer = await this.#call({ method: "POST", path, body, signal: options.signal });
    const json = answer.json;
    if ((answer.status === 200 || answer.status === 409) && typeof json?.valid === "boolean") {
      return json.valid ? { valid: true, ...json.lease ? { lease: json.lease } : {} } : { valid: false, lease: json.lease ?? null };
    }
    throw apiError(answer);
  }
  /**
   * The caller's live leases, in every repository the app serves
   * (`GET /api/v1/leases?holder=@me`, page after page).
   */
  async mine(options = {}) {
    const all = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const answer = await this.#call({
        method: "GET",
        path: "api/v1/leases",
        query: { holder: "@me", ...page > 1 ? { page: String(page) } : {} },
        signal: options.signal
      });
      if (answer.status !== 200) throw apiError(answer);
      const json = answer.json;
      if (!Array.isArray(json?.leases)) throw unexpected(answer);
      all.push(...json.leases);
      if (typeof json.next !== "string" || json.leases.length === 0) break;
    }
    return all;
  }
  /**
   * The app's lease events as they happen (`GET /api/v1/events`, Server-Sent
   * Events), of one repository (`repo`) and of the caller's leases only
   * (`holder: "@me"`) when asked: an async iterable that stays connected,
   * connecting again with a backoff and `Last-Event-ID` (so that nothing is
   * missed) when a connection fails, ends or goes silent. Ends when
   * `signal` aborts or the loop breaks; rejects with a `LeaseApiError` when
   * the app answers what retrying will not change (404: an app without the
   * stream; 401; a page that is not an event stream).
   *
   *   for await (const event of client.events({ repo: "octo-org/widgets" }, { signal })) console.log(event.type, event.issue);
   */
  events(filter = {}, options = {}) {
    return leaseEvents(this.#http, filter, options);
  }
  /**
   * Claims the issue, runs `fn` while renewing in the background every
   * third of the TTL, and releases when `fn` settles (also when it throws).
   * `signal` is aborted with a `LeaseLostError` as soon as the lease is
   * lost: an end the event stream tells of (unless `watch: false`), a
   * renewal refused, or renewals failing until the expiry has passed.
   * Resolves to `fn`'s value; rejects with `fn`'s error, or with the
   * `LeaseLostError` when the lease was lost before `fn` returned.
   */
  withLease(ref, options, fn) {
    return withLease(this, ref, options, fn);
  }
  /**
   * `withLease` for the next ready issue of `scope` matching `filters`:
   * takes it with `next` (rejecting with `NothingReadyError` before `fn`
   * runs when none is free), then holds it as `withLease` does.
   */
  withNextLease(scope, filters, options, fn) {
    return withNextLease(this, scope, filters, options, fn);
  }
  async #write(method, ref, spec) {
    const answer = await this.#send(method, leasePath(parseRef(ref)), spec);
    if (answer.status === 200) return leaseAnswer(answer);
    throw apiError(answer);
  }
  /** A write: one idempotency key (the caller's, or a new one) for all its attempts. */
  #send(method, path, spec) {
    return this.#call({
      method,
      path,
      body: spec.body,
      query: spec.query,
      signal: spec.signal,
      retries: spec.retries,
      idempotencyKey: spec.idempotencyKey ?? newIdempotencyKey()
    });
  }
  #call(spec) {
    return call(this.#http, spec);
  }
};
function leaseBody(options) {
  const body = {};
  if (options.ttl !== void 0) body.ttl = ttlText(options.ttl);
  if (options.instance !== void 0) body.instance = options.instance;
  if (options.note !== void 0) body.note = options.note;
  return body;
}
function isLeaseAnswer(json) {
  const j = json;
  return typeof j === "object" && j !== null && typeof j.outcome === "string" && typeof j.issue === "number";
}
function isQueued(json) {
  const j = json;
  return isLeaseAnswer(json) && j?.outcome === "queued" && typeof j.position === "number" && typeof j.lease === "object" && j.lease !== null;
}
function leaseAnswer(answer) {
  if (!isLeaseAnswer(answer.json)) throw unexpected(answer);
  const json = answer.json;
  if (json.outcome === "left_queue" && typeof json.lease === "object" && json.lease !== null) {
    const { holder = null, token = null, expires_at = null } = json.lease;
    return { ...json, holder, token, expires_at };
  }
  return json;
}
function apiError(answer) {
  const { status, json } = answer;
  if (status === 409 && isLeaseAnswer(json)) {
    if (json.outcome === "held") return new LeaseHeldError(json);
    if (json.outcome === "not_holder") return new LeaseNotHolderError(json);
  }
  const body = json;
  const code = typeof body?.error?.code === "string" ? body.error.code : `http_${status}`;
  const message = typeof body?.error?.message === "string" ? body.error.message : null;
  if (status === 404 && code === "nothing_ready") {
    const count = (field) => {
      const n = json?.[field];
      return typeof n === "number" ? n : 0;
    };
    return new NothingReadyError(message ?? "no issue is ready", count("matched"), count("held"), json);
  }
  if (status === 403) {
    const reason = [body?.reason, body?.error?.reason].find((r) => typeof r === "string");
    return new LeaseRefusedError(message ?? `refused${reason ? `: ${reason}` : ""}`, code, reason ?? null, json);
  }
  if (status >= 300 && status < 400) {
    return new LeaseApiError(`the API answered a redirect (${status}) to ${answer.location ?? "?"}: use that as the base URL`, status, "redirect", json);
  }
  if (message === null) return unexpected(answer);
  return new LeaseApiError(message, status, code, json);
}
function unexpected(answer) {
  return new LeaseApiError(
    `unexpected answer from the lease API (HTTP ${answer.status}): is the base URL an issue-leases app?`,
    answer.status,
    `http_${answer.status}`,
    answer.json
  );
}

// src/cli/agent-exit.ts
var AGENT_EXIT = {
  ok: 0,
  /** An answer the CLI did not expect. */
  failure: 1,
  /** EX_USAGE: a wrong argument, or one the API refused as invalid (422). */
  usage: 64,
  /** EX_NOINPUT: `next` found no issue to take (none matches, or every match is held); try later or with other filters. */
  nothing_ready: 66,
  /** EX_UNAVAILABLE: the API could not be reached, or kept failing (network, 5xx, 429) through the retries. */
  unavailable: 69,
  /** EX_TEMPFAIL: someone else holds the issue; try later. */
  held: 75,
  /** EX_PROTOCOL: the lease is lost, or was never the caller's (not_holder, a token that is not the live one). */
  lost: 76,
  /** EX_NOPERM: no token or a bad one (401), a repository the token cannot see or the app is not installed on (404), a refusal by the repository's config or by GitHub's moderation (403). */
  denied: 77,
  /** EX_CONFIG: ISSUE_LEASES_URL is missing or not a URL. */
  config: 78
};
var MODERATION = /* @__PURE__ */ new Set(["locked", "interaction_limit", "blocked"]);
var CLI_NAMES = { url: "ISSUE_LEASES_URL", token: "GITHUB_TOKEN or GH_TOKEN" };
function describeError(error2, names = CLI_NAMES) {
  if (error2 instanceof NothingReadyError) return `nothing ready: ${error2.matched} open ${error2.matched === 1 ? "issue matches" : "issues match"}, ${error2.held} of them held`;
  if (error2 instanceof LeaseApiError && !(error2 instanceof LeaseHeldError) && !(error2 instanceof LeaseNotHolderError)) {
    if (error2.status === 401) return `the API refused the token (401: ${error2.message}): check ${names.token}`;
    if (error2.status === 404) {
      return `not found (404: ${error2.message}): the repository does not exist, the token cannot see it, or the app is not installed on it`;
    }
    if (error2 instanceof LeaseRefusedError) {
      return MODERATION.has(error2.reason ?? "") ? `refused, as GitHub would refuse a comment: ${error2.message}` : `refused by the repository's config: ${error2.message}`;
    }
    return `${error2.message} (HTTP ${error2.status})`;
  }
  if (error2 instanceof LeaseUnavailableError) {
    if (error2.code === "github_unavailable") return `the API could not ask GitHub (${error2.message}): GitHub is not answering the app; try again later`;
    if (error2.status !== null) return `the API kept failing: ${error2.message}; try again later`;
    return `cannot reach the API: ${error2.message}; check ${names.url}`;
  }
  return (error2 instanceof Error ? error2.message : String(error2)).replace(/\s+/g, " ").trim();
}

// src/cli/agent-run.ts
import { spawn } from "node:child_process";
import { constants } from "node:os";

// src/cli/agent-commands.ts
function holderText(lease) {
  if (!lease.holder) return "nobody";
  return lease.holder.instance ? `${lease.holder.login} (instance ${lease.holder.instance})` : lease.holder.login;
}

// src/cli/agent-run.ts
var FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP"];
var statusOf = (signal) => 128 + (constants.signals[signal] ?? 0);
function agentRun(client, ref, options, command, io) {
  return runHeld((o, fn) => client.withLease(ref, o, fn), formatRef(ref), options, () => command, io);
}
async function runHeld(hold, ref, options, commandFor, io) {
  let name = ref ?? "";
  let command = [];
  const say = (event, text, fields = {}) => {
    io.err(options.json ? JSON.stringify({ event, issue: name, ...fields }) : `issue-leases: ${text}`);
    io.onEvent?.(event, fields);
  };
  let received = null;
  let forward = null;
  const onSignal = (signal) => {
    if (forward) return forward(signal);
    received ??= signal;
  };
  for (const s of FORWARDED) process.on(s, onSignal);
  const debug = /^(1|true)$/i.test(io.env.ISSUE_LEASES_DEBUG?.trim() ?? "");
  try {
    return await hold(
      {
        ttl: options.ttl,
        instance: options.instance,
        watch: options.watch !== false,
        ...debug ? { onWatch: (state) => io.err(debugLine(watchText(state, name), name, options.json)) } : {},
        onError: (error2, during) => say(
          `${during}_failed`,
          `${during === "renew" ? "renewing" : "releasing"} ${name} failed: ${describeError(error2, io.names)}${during === "renew" ? "; trying again until it expires" : "; it ends at its expiry"}`,
          { error: describeError(error2, io.names) }
        )
      },
      async (lease, signal) => {
        name = ref ?? `${lease.repo}#${lease.issue}`;
        command = commandFor(lease.issue);
        if (received) return statusOf(received);
        say("acquired", `${name} is yours: token ${lease.token}, ${lease.expires_at ? `expires ${lease.expires_at}` : "open-ended"}; running ${command[0]}`, {
          lease
        });
        const child = startChild(
          command,
          childEnv(io.env, name, lease, options.instance),
          options.graceMs,
          (why, code) => say("not_started", `cannot run ${command[0]}: ${why}`, { status: code, error: why })
        );
        forward = child.stop;
        const onLost = () => child.stop("SIGTERM");
        signal.addEventListener("abort", onLost, { once: true });
        if (signal.aborted) onLost();
        const status = await child.status;
        signal.removeEventListener("abort", onLost);
        forward = null;
        if (child.started() && (!signal.aborted || received)) say("exited", `${command[0]} exited with status ${status}; releasing ${name}`, { status });
        return status;
      }
    );
  } catch (error2) {
    if (error2 instanceof LeaseLostError) {
      const cause = error2.cause instanceof Error && "lease" in error2.cause ? error2.cause.lease : null;
      const now = cause?.holder ? ` (now held by ${holderText(cause)} with token ${cause.token})` : "";
      say("lost", `${error2.message}${now}; stopped ${command[0]}`, { reason: error2.reason, token: error2.token });
      return AGENT_EXIT.lost;
    }
    throw error2;
  } finally {
    for (const s of FORWARDED) process.off(s, onSignal);
  }
}
function debugLine(text, name, json) {
  return json ? JSON.stringify({ debug: text, issue: name }) : `issue-leases: debug: ${text}`;
}
function watchText(state, name) {
  if (state.state === "open") return `watching ${name}'s lease events${state.resumed ? " again, from the last one seen" : ""}`;
  const again = Math.max(1, Math.round(state.retryInMs / 1e3));
  const error2 = state.error instanceof Error ? state.error : new Error(String(state.error));
  const cause = error2.cause instanceof Error ? ` (${error2.cause.code ?? error2.cause.message})` : "";
  return `the event stream is down (${error2.message}${cause}): renewals alone notice a lost lease; trying it again in ${again} s`;
}
function childEnv(env, name, lease, instance) {
  const out = { ...env, ISSUE_LEASES_TOKEN: String(lease.token), ISSUE_LEASES_REF: name, ISSUE_LEASES_ISSUE: String(lease.issue) };
  delete out.ISSUE_LEASES_INSTANCE;
  if (instance !== void 0) out.ISSUE_LEASES_INSTANCE = instance;
  return out;
}
function groupAlive(pid) {
  if (pid === void 0) return false;
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}
function startChild(command, env, graceMs, notStarted) {
  const child = spawn(command[0], command.slice(1), { stdio: "inherit", env, detached: true });
  let killTimer;
  let stopping = false;
  let exited = false;
  const signalGroup = (signal) => {
    if (child.pid === void 0) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
    }
  };
  const stop = (signal) => {
    if (stopping) {
      signalGroup("SIGKILL");
      return;
    }
    stopping = true;
    signalGroup(signal);
    killTimer = setTimeout(() => signalGroup("SIGKILL"), graceMs);
  };
  const status = new Promise((resolve) => {
    const finish = (code) => {
      if (exited) return;
      exited = true;
      if (!stopping || !groupAlive(child.pid)) clearTimeout(killTimer);
      resolve(code);
    };
    child.once("error", (error2) => {
      const code = error2.code === "ENOENT" ? 127 : 126;
      notStarted(error2.code === "ENOENT" ? "not found" : error2.message, code);
      finish(code);
    });
    child.once("exit", (code, signal) => finish(code ?? (signal ? statusOf(signal) : 1)));
  });
  return { status, stop, started: () => child.pid !== void 0 };
}

// src/action/runner.ts
import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
function processIo() {
  return { env: process.env, log: (line) => process.stdout.write(`${line.replace(/[\r\n]+/g, " ")}
`) };
}
function input(io, name) {
  return (io.env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] ?? "").trim();
}
function setOutput(io, name, value) {
  appendFileCommand(io, "GITHUB_OUTPUT", name, value);
}
function saveState(io, name, value) {
  appendFileCommand(io, "GITHUB_STATE", name, value);
}
function appendFileCommand(io, variable, name, value) {
  const file = io.env[variable];
  if (!file) throw new Error(`${variable} is not set: this runs as a step of a GitHub Actions job`);
  const delimiter = `ghadelimiter_${randomUUID()}`;
  if (name.includes(delimiter) || value.includes(delimiter)) throw new Error(`the value of ${name} holds its own delimiter`);
  appendFileSync(file, `${name}<<${delimiter}
${value}
${delimiter}
`, "utf8");
}
function mask(io, secret) {
  if (secret !== "") io.log(`::add-mask::${escapeData(secret)}`);
}
function error(io, message) {
  io.log(`::error::${escapeData(message)}`);
}
function escapeData(text) {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

// src/action/settings.ts
import { createHash, randomUUID as randomUUID2 } from "node:crypto";
import { readFileSync } from "node:fs";
var ACTION_NAMES = { url: "the url input", token: "the token input" };
var InputError = class extends Error {
  name = "InputError";
};
var DEFAULT_GRACE_MS = 1e4;
function readConnection(io) {
  const allowHttp = booleanInput(io, "allow-http");
  const urlText = input(io, "url");
  if (urlText === "") throw new InputError("the url input is empty: set it to the issue-leases app's URL, e.g. https://leases.example.com");
  let url;
  try {
    url = checkBaseUrl(urlText, { name: "the url input", allowHttp, allowHow: "set allow-http: true" });
  } catch (error2) {
    throw new InputError(error2.message);
  }
  const token = input(io, "token");
  if (token === "") throw new InputError("the token input is empty: leave it out for the workflow's GITHUB_TOKEN, or pass one, e.g. token: ${{ secrets.BOT_TOKEN }}");
  return { url, allowHttp, token };
}
function clientFor(connection) {
  return new LeaseClient({ baseUrl: connection.url, allowHttp: connection.allowHttp, token: connection.token, userAgent: "issue-leases-action" });
}
function readSettings(io) {
  const connection = readConnection(io);
  const ttl = input(io, "ttl") || void 0;
  if (ttl !== void 0 && ttlMs(ttl) === null) throw new InputError(`ttl ${JSON.stringify(ttl.slice(0, 200))} is not a duration: use 30s, 45m, 2h, 3d or 2w`);
  const command = input(io, "command");
  return {
    ...connection,
    ref: issueRef(io),
    ttl,
    instance: input(io, "instance") || defaultInstance(io.env),
    waitMs: duration(io, "wait", 0),
    command: command === "" ? null : command,
    graceMs: duration(io, "grace", DEFAULT_GRACE_MS),
    watch: booleanInput(io, "watch", true)
  };
}
function issueRef(io) {
  const text = input(io, "issue");
  const repository = io.env.GITHUB_REPOSITORY ?? "";
  if (text !== "") {
    const number2 = /^#?(\d{1,15})$/.exec(text);
    try {
      return parseRef(number2 ? `${repository}#${number2[1]}` : text);
    } catch {
      throw new InputError(`issue ${JSON.stringify(text.slice(0, 200))} is not an issue: write owner/repo#N, or N for an issue of ${repository || "this repository"}`);
    }
  }
  const path = io.env.GITHUB_EVENT_PATH;
  const event = io.env.GITHUB_EVENT_NAME ?? "this event";
  let payload;
  try {
    payload = JSON.parse(readFileSync(path ?? "", "utf8"));
  } catch {
    throw new InputError("the issue input is empty and the event's payload (GITHUB_EVENT_PATH) cannot be read: set issue, e.g. issue: 12");
  }
  const number = payload?.issue?.number;
  const repo = typeof payload?.repository?.full_name === "string" ? payload.repository.full_name : repository;
  if (typeof number !== "number") throw new InputError(`the issue input is empty and ${event} is not about an issue: set issue, e.g. issue: 12 or owner/repo#12`);
  try {
    return parseRef(`${repo}#${number}`);
  } catch {
    throw new InputError(`the event's issue ${JSON.stringify(`${repo}#${number}`)} is not an issue: set the issue input`);
  }
}
function defaultInstance(env) {
  const run2 = env.GITHUB_RUN_ID;
  if (!run2 || !/^\d{1,20}$/.test(run2)) return `gha-${randomUUID2().slice(0, 13)}`;
  const attempt = /^\d{1,4}$/.test(env.GITHUB_RUN_ATTEMPT ?? "") ? env.GITHUB_RUN_ATTEMPT : "1";
  const where = createHash("sha256").update(`${env.GITHUB_JOB ?? ""}
${env.RUNNER_NAME ?? ""}
${env.GITHUB_ACTION ?? ""}`).digest("hex").slice(0, 8);
  return `gha-${run2}-${attempt}-${where}`;
}
function duration(io, name, fallback) {
  const text = input(io, name);
  if (text === "") return fallback;
  if (text === "0") return 0;
  const ms = ttlMs(text);
  if (ms === null) throw new InputError(`${name} ${JSON.stringify(text.slice(0, 200))} is not a duration: use 30s, 10m or 1h`);
  return ms;
}
function booleanInput(io, name, fallback = false) {
  const text = input(io, name);
  if (text === "") return fallback;
  if (["false", "False", "FALSE"].includes(text)) return false;
  if (["true", "True", "TRUE"].includes(text)) return true;
  throw new InputError(`${name} ${JSON.stringify(text.slice(0, 200))} is not a boolean: write true or false`);
}

// src/action/main-step.ts
var POLL_MAX_MS = 15e3;
var POLL_MIN_MS = 1e3;
async function runMainStep(io) {
  mask(io, input(io, "token"));
  let settings;
  try {
    for (const file of ["GITHUB_OUTPUT", "GITHUB_STATE"]) {
      if (!io.env[file]) throw new InputError(`${file} is not set: the action runs as a step of a GitHub Actions job`);
    }
    settings = readSettings(io);
  } catch (e) {
    error(io, e instanceof InputError ? e.message : `reading the inputs failed: ${describeError(e, ACTION_NAMES)}`);
    return 1;
  }
  const client = clientFor(settings);
  try {
    return settings.command === null ? await claim(io, client, settings) : await run(io, client, settings, settings.command);
  } catch (e) {
    const waited = settings.waitMs > 0 ? ` (waited ${Math.round(settings.waitMs / 1e3)} s)` : "; set wait (e.g. wait: 10m) to wait for it";
    error(io, `${formatRef(settings.ref)}: ${describeError(e, ACTION_NAMES)}${e instanceof LeaseHeldError ? waited : ""}`);
    return 1;
  }
}
async function claim(io, client, settings) {
  const name = formatRef(settings.ref);
  const lease = await whileHeld(io, settings, () => client.claim(settings.ref, { ttl: settings.ttl, instance: settings.instance }));
  saveState(io, "issue", name);
  saveState(io, "instance", settings.instance);
  setOutput(io, "token", String(lease.token));
  setOutput(io, "expires_at", lease.expires_at ?? "");
  setOutput(io, "issue", name);
  setOutput(io, "instance", settings.instance);
  const until = lease.expires_at ? `until ${lease.expires_at}` : "open-ended";
  io.log(`issue-leases: ${name} is yours (instance ${settings.instance}): token ${lease.token}, ${until}; released when the job ends`);
  return 0;
}
async function run(io, client, settings, command) {
  const name = formatRef(settings.ref);
  const argv = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", command];
  let lost = false;
  const status = await whileHeld(
    io,
    settings,
    () => agentRun(client, settings.ref, { ttl: settings.ttl, instance: settings.instance, graceMs: settings.graceMs, json: false, watch: settings.watch }, argv, {
      err: (line) => io.log(line),
      env: commandEnv(io.env, settings),
      names: ACTION_NAMES,
      onEvent(event, fields) {
        if (event === "acquired") {
          const lease = fields.lease;
          saveState(io, "issue", name);
          saveState(io, "instance", settings.instance);
          setOutput(io, "token", String(lease.token));
          setOutput(io, "expires_at", lease.expires_at ?? "");
        }
        if (event === "lost") lost = true;
      }
    })
  );
  saveState(io, "issue", "");
  if (status === AGENT_EXIT.ok) return 0;
  error(io, lost ? `${name}: the lease was lost while the command ran, and the command was stopped` : `${name}: the command exited with status ${status}`);
  return status;
}
function commandEnv(env, settings) {
  const out = {};
  for (const [key, value] of Object.entries(env)) if (!key.startsWith("INPUT_")) out[key] = value;
  out.ISSUE_LEASES_URL = settings.url.href;
  return out;
}
async function whileHeld(io, settings, attempt) {
  const deadline = Date.now() + settings.waitMs;
  for (; ; ) {
    try {
      return await attempt();
    } catch (e) {
      const left = deadline - Date.now();
      if (!(e instanceof LeaseHeldError) || left <= 0) throw e;
      const expiry = e.expiresAt === null ? Number.NaN : Date.parse(e.expiresAt);
      const untilFree = Number.isNaN(expiry) ? POLL_MAX_MS : expiry - Date.now();
      const pause2 = Math.min(left, Math.max(POLL_MIN_MS, Math.min(POLL_MAX_MS, untilFree)));
      io.log(`issue-leases: ${e.message}; asking again in ${Math.ceil(pause2 / 1e3)} s (waiting ${Math.ceil(left / 1e3)} s more at most)`);
      await sleep2(pause2);
    }
  }
}

// src/action/main.ts
process.exitCode = await runMainStep(processIo());
