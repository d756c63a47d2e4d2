/**
 * Sends one outgoing webhook: a POST of the event's body, signed with the
 * operator's `EVENTS_WEBHOOK_SECRET` (sign.ts), to an address the target
 * guard checked when the name was resolved for this very connection
 * (target-lookup.ts). Node's `http.request` rather than `fetch`: its socket
 * takes our `lookup`, so the connection goes to the address checked, and no
 * redirect is followed (a 3xx is an answer like any other).
 *
 * Resolves on a 2xx; anything else throws a DeliveryError saying what the
 * receiver did (its status, or that it did not answer), for the outbox to
 * decide between a retry and giving up (outbox/after-failure.ts).
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LeaseEvent } from "../ledger/event-types.js";
import { SIGNATURE_HEADER, signBody } from "./sign.js";
import { checkTargetUrl, type TargetPolicy } from "./target-guard.js";
import { guardedLookup, RefusedTargetError, type Resolve, systemResolve } from "./target-lookup.js";
import { webhookBody, type WebhookFormat } from "./webhook-body.js";

export const EVENT_HEADER = "X-Issue-Leases-Event";
export const DELIVERY_HEADER = "X-Issue-Leases-Delivery";
export const TIMESTAMP_HEADER = "X-Issue-Leases-Timestamp";

/** A delivery as the outbox keeps it: where, in which form, its id, and the event. */
export interface WebhookDelivery {
  url: string;
  format: WebhookFormat;
  delivery: string;
  event: LeaseEvent;
}

/** What became of a delivery that did not get a 2xx. */
export class DeliveryError extends Error {
  constructor(
    message: string,
    /** The receiver's status; null when it did not answer (network, timeout) or the target was refused. */
    readonly status: number | null,
    /** `Retry-After` of a 429 or 503, in ms. */
    readonly retryAfterMs: number | null = null,
    /** The guard refused the address: retrying cannot help until the config or DNS changes. */
    readonly refused = false,
  ) {
    super(message);
  }
}

export interface SenderOptions {
  secret: string;
  policy: TargetPolicy;
  /** How long a delivery may take, connection to last byte of the answer; default 10 s. */
  timeoutMs?: number;
  /** Deliveries in flight at once, over every target; more wait their turn. Default 16. */
  concurrency?: number;
  clock?: () => number;
  resolve?: Resolve;
  /** Told of each delivery's outcome (for metrics): `delivered`, `failed` (an answer not 2xx), `no_answer`, `refused`. */
  onResult?: (outcome: DeliveryOutcome, status: number | null) => void;
}

export type DeliveryOutcome = "delivered" | "failed" | "no_answer" | "refused";

/** Sends a delivery; throws DeliveryError unless the receiver answered 2xx. */
export type SendEvent = (delivery: WebhookDelivery, signal: AbortSignal) => Promise<void>;

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
// The receiver's answer is read and dropped; a huge one is not read to its end.
const ANSWER_MAX = 64 * 1024;

/** A sender with the operator's secret and policy. */
export function eventSender(o: SenderOptions): SendEvent {
  const timeoutMs = o.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const clock = o.clock ?? Date.now;
  const lookup = guardedLookup(o.policy, o.resolve ?? systemResolve);
  const turns = turnstile(o.concurrency ?? 16);
  return async (d, signal) => {
    const release = await turns(signal);
    try {
      await send(d, signal);
      o.onResult?.("delivered", null);
    } catch (error) {
      const e = error instanceof DeliveryError ? error : new DeliveryError(String((error as Error)?.message ?? error), null);
      o.onResult?.(e.refused ? "refused" : e.status === null ? "no_answer" : "failed", e.status);
      throw e;
    } finally {
      release();
    }
  };

  function send(d: WebhookDelivery, signal: AbortSignal): Promise<void> {
    // The URL was checked when the config was read; checked again, as the policy may have changed since.
    const target = checkTargetUrl(d.url, o.policy);
    if (!target.ok) return Promise.reject(new DeliveryError(`the target ${target.problem}`, null, null, true));
    const url = target.url;
    const body = Buffer.from(webhookBody(d.event, d.format), "utf8");
    const headers = {
      "Content-Type": "application/json",
      "User-Agent": "issue-leases",
      [EVENT_HEADER]: d.event.type,
      [DELIVERY_HEADER]: d.delivery,
      [TIMESTAMP_HEADER]: String(Math.floor(clock() / 1000)),
      [SIGNATURE_HEADER]: signBody(o.secret, body.toString("utf8")),
      "Content-Length": String(body.length),
    };
    const request = url.protocol === "https:" ? httpsRequest : httpRequest;
    const where = url.host;
    return new Promise<void>((resolve, reject) => {
      // A connection of its own (no agent): each delivery resolves and checks the name, none reuses an older socket.
      const req = request(url, { method: "POST", headers, lookup, signal, timeout: timeoutMs, agent: false }, (res) => answered(res));
      const deadline = setTimeout(() => req.destroy(new DeliveryError(`${where} did not answer within ${timeoutMs} ms`, null)), timeoutMs);
      const settle = (error: unknown) => {
        clearTimeout(deadline);
        if (error === null) return resolve();
        if (error instanceof DeliveryError) return reject(error);
        if (error instanceof RefusedTargetError) return reject(new DeliveryError(error.message, null, null, true));
        const code = (error as NodeJS.ErrnoException)?.code;
        reject(new DeliveryError(`${where}: ${code ?? (error as Error)?.message ?? String(error)}`, null));
      };
      req.on("timeout", () => req.destroy(new DeliveryError(`${where} went silent for ${timeoutMs} ms`, null)));
      req.on("error", settle);
      const answered = (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        let read = 0;
        res.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read > ANSWER_MAX) res.destroy();
        });
        const done = () => {
          if (status >= 200 && status < 300) return settle(null);
          settle(new DeliveryError(`${where} answered ${status}`, status, retryAfter(res.headers["retry-after"], clock())));
        };
        res.on("end", done);
        res.on("close", done);
        res.on("error", () => done());
      };
      req.end(body);
    });
  }
}

/** `Retry-After` in ms: seconds, or an HTTP date; null when absent or unreadable. */
export function retryAfter(value: string | string[] | undefined, now: number): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === "") return null;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** At most `n` holders at once; a waiter whose signal aborts leaves the line. */
function turnstile(n: number): (signal: AbortSignal) => Promise<() => void> {
  let held = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    held -= 1;
    waiting.shift()?.();
  };
  return (signal) =>
    new Promise((resolve, reject) => {
      const take = () => {
        signal.removeEventListener("abort", leave);
        held += 1;
        resolve(once(release));
      };
      const leave = () => {
        const i = waiting.indexOf(take);
        if (i >= 0) waiting.splice(i, 1);
        reject(signal.reason);
      };
      if (signal.aborted) return reject(signal.reason);
      if (held < n) return take();
      waiting.push(take);
      signal.addEventListener("abort", leave, { once: true });
    });
}

function once(f: () => void): () => void {
  let done = false;
  return () => {
    if (!done) f();
    done = true;
  };
}
