/**
 * `LeaseClient.events`: the app's stream of lease events (`GET
 * /api/v1/events`, Server-Sent Events) as an async iterable that stays
 * connected. A connection that fails, ends, or stays silent past the idle
 * timeout (the app sends a heartbeat every 15 s) is made again after a
 * backoff, with `Last-Event-ID`, so that the app replays what was missed.
 * An answer that retrying will not change (a 404 from an app without the
 * stream, a 401, a page that is not an event stream) ends the iteration
 * with a `LeaseApiError`; the caller's signal ends it quietly.
 */
import { LeaseApiError } from "./errors.js";
import type { EventFilter, EventsOptions, LeaseEvent, StreamGap } from "./event-types.js";
import { type HttpConfig, MAX_TIMER_MS, retryAfter, sleep } from "./http.js";
import { SseParser } from "./sse-parser.js";

const DEFAULT_IDLE_MS = 45_000;
const DEFAULT_MIN_DELAY_MS = 1_000;
const DEFAULT_MAX_DELAY_MS = 30_000;
/** The app's notice that events may be missing (it carries no `id:`, so the last event id stays). */
const GAP_EVENT = "stream.gap";
/** Answers worth connecting again after, as a call retries them. */
const TRANSIENT = new Set([408, 429, 500, 502, 503, 504]);

export function eventsPath(filter: EventFilter): { path: string; query: Record<string, string> } {
  const query: Record<string, string> = {};
  if (filter.repo !== undefined) {
    const repo = typeof filter.repo === "string" ? filter.repo : `${filter.repo.owner}/${filter.repo.repo}`;
    if (!/^[\w.-]+\/[\w.-]+$/.test(repo)) throw new TypeError(`not a repository: ${JSON.stringify(repo.slice(0, 200))}; write it as owner/name`);
    query.repo = repo;
  }
  if (filter.holder !== undefined) {
    if (filter.holder !== "@me") throw new TypeError(`holder must be "@me", not ${JSON.stringify(String(filter.holder).slice(0, 200))}`);
    query.holder = "@me";
  }
  return { path: "api/v1/events", query };
}

export async function* leaseEvents(config: HttpConfig, filter: EventFilter, options: EventsOptions = {}): AsyncGenerator<LeaseEvent, void, undefined> {
  const { path, query } = eventsPath(filter);
  const url = new URL(path, config.baseUrl);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  const outer = options.signal;
  const idleMs = Math.min(Math.max(1, options.idleTimeoutMs ?? DEFAULT_IDLE_MS), MAX_TIMER_MS);
  const maxDelay = Math.max(1, options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS);
  let baseDelay = Math.max(1, options.minDelayMs ?? DEFAULT_MIN_DELAY_MS);
  let lastId = options.lastEventId ?? "";
  /** Connections in a row that failed before they were open. */
  let failures = 0;

  while (!outer?.aborted) {
    const connection = new AbortController();
    const stop = () => connection.abort(outer?.reason);
    outer?.addEventListener("abort", stop, { once: true });
    let idle: ReturnType<typeof setTimeout> | undefined;
    const awake = () => {
      clearTimeout(idle);
      idle = setTimeout(() => connection.abort(new Error(`the event stream sent nothing for ${Math.round(idleMs / 1000)} s`)), idleMs);
    };
    let asked: number | null = null;
    let failure: unknown;
    try {
      awake();
      const res = await connect(config, url, lastId, connection.signal);
      if (res.status !== 200) {
        const text = await res.text().catch(() => "");
        if (!TRANSIENT.has(res.status)) throw notServed(res, text);
        asked = retryAfter(res.headers.get("retry-after"));
        throw new Error(`the event stream answered HTTP ${res.status}`);
      }
      const type = res.headers.get("content-type") ?? "";
      if (!/^text\/event-stream\b/i.test(type) || res.body === null) {
        await res.body?.cancel().catch(() => undefined);
        throw new LeaseApiError(
          `${url.pathname} answered ${type || "no content type"}, not text/event-stream: does this app serve lease events?`,
          200,
          "not_event_stream",
          null,
        );
      }
      failures = 0;
      options.onOpen?.({ lastEventId: lastId === "" ? null : lastId });
      const parser = new SseParser(lastId);
      // Decoded as it comes (a character split across two reads waits for the next), without a second stream to pipe through.
      const decoder = new TextDecoder();
      const reader = res.body.getReader();
      try {
        for (;;) {
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
        reader.cancel().catch(() => undefined);
      }
      failure = new Error("the event stream ended");
    } catch (error) {
      if (outer?.aborted) return;
      if (error instanceof LeaseApiError) throw error;
      failure = connection.signal.aborted && connection.signal.reason instanceof Error ? connection.signal.reason : error;
      failures++;
    } finally {
      clearTimeout(idle);
      outer?.removeEventListener("abort", stop);
      connection.abort();
    }
    // What the app asked for (429, 503: Retry-After), but never less than the backoff, so that a crowd of refused streams thins out.
    const delay = Math.max(asked ?? 0, backoff(baseDelay, maxDelay, failures));
    options.onError?.(failure, delay);
    try {
      await sleep(delay, outer);
    } catch {
      return;
    }
  }
}

async function connect(config: HttpConfig, url: URL, lastId: string, signal: AbortSignal): Promise<Response> {
  const headers: Record<string, string> = { accept: "text/event-stream", "cache-control": "no-cache", "user-agent": config.userAgent };
  const token = typeof config.token === "function" ? await config.token() : config.token;
  if (token) headers.authorization = `Bearer ${token}`;
  if (lastId !== "") headers["last-event-id"] = lastId;
  // A redirect is answered as it is: the base URL should be the app's own.
  return config.fetch(url, { method: "GET", headers, signal, redirect: "manual" });
}

/** After a connection that was open: the base delay; after failures to connect: doubling, with jitter, up to `max`. */
function backoff(base: number, max: number, failures: number): number {
  const ceiling = Math.min(max, base * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

function notServed(res: Response, text: string): LeaseApiError {
  let json: unknown = null;
  try {
    json = text === "" ? null : JSON.parse(text);
  } catch {
    json = null;
  }
  const error = (json as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const code = typeof error?.code === "string" ? error.code : `http_${res.status}`;
  const said = typeof error?.message === "string" ? `: ${error.message.slice(0, 200)}` : "";
  const what =
    res.status === 404 ? "not found (an app without lease events?)" : res.status >= 300 && res.status < 400 ? `a redirect to ${res.headers.get("location") ?? "?"}` : `HTTP ${res.status}`;
  return new LeaseApiError(`the event stream answered ${what}${said}`, res.status, code, json);
}

/** The event in a stream's message, or null when it is not a lease event (another type, or data that is not one). */
export function leaseEvent(type: string, data: string): LeaseEvent | null {
  if (!type.startsWith("lease.")) return null;
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return null;
  }
  const e = json as Partial<LeaseEvent> | null;
  if (typeof e !== "object" || e === null) return null;
  if (typeof e.repo !== "string" || typeof e.issue !== "number" || typeof e.token !== "number" || typeof e.type !== "string") return null;
  if (typeof e.holder !== "object" || e.holder === null) return null;
  return e as LeaseEvent;
}

function gapOf(data: string): StreamGap {
  let json: Partial<StreamGap> | null = null;
  try {
    json = JSON.parse(data) as Partial<StreamGap> | null;
  } catch {
    json = null;
  }
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  return { after: text(json?.after), reason: text(json?.reason), message: text(json?.message) };
}
