/**
 * Receivers that keep not answering are held back: after `misses` deliveries
 * in a row got no answer (a timeout, a refused or reset connection), the
 * receiver's next deliveries are not sent for a while (10 s, doubling each
 * time it is held again without having answered in between, up to 5
 * minutes). A held delivery takes no slot: it fails at once, saying until
 * when, and the outbox records its retry for then (after-failure.ts), so
 * the receiver's deliveries wait in the outbox, not in a connection. When
 * the hold ends the next delivery goes; one more miss holds the receiver
 * again, any answer (even a 5xx, which comes quickly) lets it go.
 *
 * In-process, per replica: each replica learns a dead receiver by its own
 * misses; what they share is the ledger's retry times of the deliveries.
 * Forgotten (memory is bounded) it is learnt again the same way.
 */
import { BoundedMap } from "../github/bounded-map.js";

export interface CircuitSettings {
  /** Deliveries in a row without an answer that hold the receiver back. */
  misses: number;
  firstHoldMs: number;
  maxHoldMs: number;
}

export const DEFAULT_CIRCUIT: CircuitSettings = { misses: 3, firstHoldMs: 10_000, maxHoldMs: 5 * 60_000 };

interface Circuit {
  misses: number;
  holds: number;
  until: number;
}

export class ReceiverCircuits {
  private readonly circuits = new BoundedMap<Circuit>(10_000);

  constructor(private readonly o: CircuitSettings = DEFAULT_CIRCUIT) {}

  /** Until when `receiver`'s deliveries are held back, or null when they may go. */
  heldUntil(receiver: string, now: number): number | null {
    const c = this.circuits.get(receiver);
    return c && c.until > now ? c.until : null;
  }

  /** The receiver answered (anything): it is not held back. */
  answered(receiver: string): void {
    this.circuits.delete(receiver);
  }

  /** The receiver did not answer a delivery; answers whether it is now held back. */
  missed(receiver: string, now: number): boolean {
    const c = this.circuits.get(receiver) ?? { misses: 0, holds: 0, until: 0 };
    // A delivery sent before the hold began, missing now: the hold already counts it.
    if (c.until > now) return true;
    c.misses += 1;
    this.circuits.set(receiver, c);
    if (c.misses < this.o.misses) return false;
    c.holds += 1;
    c.until = Math.max(c.until, now + Math.min(this.o.maxHoldMs, this.o.firstHoldMs * 2 ** (c.holds - 1)));
    // Held again by the next miss once this hold is over, not after `misses` more.
    c.misses = this.o.misses - 1;
    return true;
  }
}
