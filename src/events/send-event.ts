/**
 * Sends one outgoing webhook: a POST of the event's body, signed as the
 * Standard Webhooks specification says with its installation's key
 * (sign.ts), to an address the target guard checked when the name was
 * resolved for this very connection (target-lookup.ts). Node's
 * `http.request` rather than `fetch`: its socket takes our `lookup`, so the
 * connection goes to the address checked, and no redirect is followed (a
 * 3xx is an answer like any other).
 *
 * No tenant can stall another's: a delivery takes a slot of the sender's
 * shares (delivery-slots.ts), within its installation's and its receiver's,
 * and a receiver that keeps not answering is held back (receiver-circuit.ts):
 * its deliveries fail at once, taking no slot, to be retried when the hold
 * ends.
 *
 * Resolves on a 2xx; anything else throws a DeliveryError saying what the
 * receiver did (its status, or that it did not answer, or that it is held
 * back), for the outbox to decide between a retry and giving up
 * (outbox/after-failure.ts).
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LeaseEvent } from "../ledger/events/event-types.js";
import { DEFAULT_DELIVERY_SHARES, type DeliveryShares, DeliverySlots } from "./delivery-slots.js";
import { type CircuitSettings, DEFAULT_CIRCUIT, ReceiverCircuits } from "./receiver-circuit.js";
import { ID_HEADER, installationKey, SIGNATURE_HEADER, signDelivery, TIMESTAMP_HEADER } from "./sign.js";
import { checkTargetUrl, type TargetPolicy } from "./target-guard.js";
import { guardedLookup, RefusedTargetError, type Resolve, systemResolve } from "./target-lookup.js";
import { webhookBody, type WebhookFormat } from "./webhook-body.js";

/** A delivery as the outbox keeps it: where, in which form, its id, the event, and the installation whose key signs it. */
export interface WebhookDelivery {
  url: string;
  format: WebhookFormat;
  /** `webhook-id`: one per event and target, the same on every retry. */
  delivery: string;
  event: LeaseEvent;
  installation: number;
}

/** What became of a delivery that did not get a 2xx. */
export class DeliveryError extends Error {
  constructor(
    message: string,
    /** The receiver's status; null when it did not answer (network, timeout), the target was refused or is held back. */
    readonly status: number | null,
    /** `Retry-After` of a 429 or 503, or the end of a hold, in ms from now. */
    readonly retryAfterMs: number | null = null,
    /** The guard refused the address: retrying cannot help until the config or DNS changes. */
    readonly refused = false,
    /** Not sent: the receiver is held back after deliveries it did not answer. */
    readonly heldBack = false,
  ) {
    super(message);
  }
}

export interface SenderOptions {
  /** The operator's `EVENTS_WEBHOOK_SECRET`, from which each installation's key is derived. */
  secret: string;
  policy: TargetPolicy;
  /** How long a delivery may take, connection to last byte of the answer; default 10 s. */
  timeoutMs?: number;
  /** Deliveries in flight at once: over all (16), per installation (4), per receiver of an installation (2); more wait their turn. */
  shares?: Partial<DeliveryShares>;
  /** When a receiver that does not answer is held back, and for how long. */
  circuit?: Partial<CircuitSettings>;
  clock?: () => number;
  resolve?: Resolve;
  /** Told of each delivery's outcome (for metrics): `delivered`, `failed` (an answer not 2xx), `no_answer`, `refused`, `held_back`. */
  onResult?: (outcome: DeliveryOutcome, status: number | null) => void;
}

export type DeliveryOutcome = "delivered" | "failed" | "no_answer" | "refused" | "held_back";

/** Sends a delivery; throws DeliveryError unless the receiver answered 2xx. `shares`: what the drainer may hand it at once. */
export type SendEvent = ((delivery: WebhookDelivery, signal: AbortSignal) => Promise<void>) & { readonly shares: DeliveryShares };

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
// The receiver's answer is read and dropped; a huge one is not read to its end.
const ANSWER_MAX = 64 * 1024;

/** A sender with the operator's secret and policy. */
export function eventSender(o: SenderOptions): SendEvent {
  const timeoutMs = o.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const clock = o.clock ?? Date.now;
  const lookup = guardedLookup(o.policy, o.resolve ?? systemResolve);
  const slots = new DeliverySlots({ ...DEFAULT_DELIVERY_SHARES, ...o.shares });
  const circuits = new ReceiverCircuits({ ...DEFAULT_CIRCUIT, ...o.circuit });

  const sendEvent = async (d: WebhookDelivery, signal: AbortSignal): Promise<void> => {
    try {
      // The URL was checked when the config was read; checked again, as the policy may have changed since.
      const target = checkTargetUrl(d.url, o.policy);
      if (!target.ok) throw new DeliveryError(`the target ${target.problem}`, null, null, true);
      if (!Number.isSafeInteger(d.installation) || d.installation <= 0) throw new DeliveryError("the delivery names no installation whose key would sign it", null, null, true);
      // An installation's receiver: its slots and its hold are its own, whoever else sends to the same host.
      const receiver = `${d.installation} ${target.url.origin}`;
      notHeld(receiver, target.url.host);
      const release = await slots.take(d.installation, receiver, signal);
      try {
        // Held back while this one waited for its slot: it need not try.
        notHeld(receiver, target.url.host);
        await post(d, target.url, signal);
        circuits.answered(receiver);
      } catch (error) {
        if (!signal.aborted && error instanceof DeliveryError && !error.refused && !error.heldBack) {
          if (error.status === null) circuits.missed(receiver, clock());
          else circuits.answered(receiver);
        }
        throw error;
      } finally {
        release();
      }
      o.onResult?.("delivered", null);
    } catch (error) {
      // Stopped (lock lost, shutting down): not the receiver's doing.
      if (signal.aborted) throw error;
      const e = error instanceof DeliveryError ? error : new DeliveryError(String((error as Error)?.message ?? error), null);
      o.onResult?.(e.refused ? "refused" : e.heldBack ? "held_back" : e.status === null ? "no_answer" : "failed", e.status);
      throw e;
    }
  };
  return Object.assign(sendEvent, { shares: slots.shares });

  function notHeld(receiver: string, host: string): void {
    const now = clock();
    const until = circuits.heldUntil(receiver, now);
    if (until === null) return;
    throw new DeliveryError(`${host} is held back until ${new Date(until).toISOString()}: it did not answer the deliveries before`, null, until - now, false, true);
  }

  function post(d: WebhookDelivery, url: URL, signal: AbortSignal): Promise<void> {
    const body = webhookBody(d.event, d.format);
    // The time of this try, signed with the id and the body: a receiver refuses it once it is old.
    const timestamp = Math.floor(clock() / 1000);
    const headers = {
      "Content-Type": "application/json",
      "User-Agent": "issue-leases",
      [ID_HEADER]: d.delivery,
      [TIMESTAMP_HEADER]: String(timestamp),
      [SIGNATURE_HEADER]: signDelivery(installationKey(o.secret, d.installation), d.delivery, timestamp, body),
      "Content-Length": String(Buffer.byteLength(body, "utf8")),
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
