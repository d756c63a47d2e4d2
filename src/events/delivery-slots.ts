/**
 * The sender's connections, shared so that no tenant can hold them all: at
 * most `total` deliveries in flight, of which at most `perInstallation` for
 * one installation and `perReceiver` for one receiver of it (its URL's
 * scheme, host and port). A receiver that accepts connections and never
 * answers holds its slots until the timeout; it cannot hold another
 * installation's, nor the rest of its own installation's.
 *
 * A delivery waits for a slot in order, but only behind those that could
 * take it: one whose installation or receiver has its share in flight lets
 * the next ones by.
 */

export interface DeliveryShares {
  /** Deliveries in flight at once, over every installation. */
  total: number;
  /** Of which one installation's. */
  perInstallation: number;
  /** Of which one receiver's (per installation). */
  perReceiver: number;
}

export const DEFAULT_DELIVERY_SHARES: DeliveryShares = { total: 16, perInstallation: 4, perReceiver: 2 };

interface Waiter {
  installation: number;
  receiver: string;
  take(): void;
}

export class DeliverySlots {
  private held = 0;
  private readonly byInstallation = new Map<number, number>();
  private readonly byReceiver = new Map<string, number>();
  private readonly waiting: Waiter[] = [];

  constructor(readonly shares: DeliveryShares) {}

  /**
   * Waits for a slot of `installation` and `receiver` (a key of the
   * installation's receiver); resolves with its release. A waiter whose
   * signal aborts leaves the line.
   */
  take(installation: number, receiver: string, signal: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const waiter: Waiter = {
        installation,
        receiver,
        take: () => {
          signal.removeEventListener("abort", leave);
          resolve(this.hold(waiter));
        },
      };
      const leave = () => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal.reason);
      };
      if (this.waiting.length === 0 && this.fits(waiter)) return waiter.take();
      this.waiting.push(waiter);
      signal.addEventListener("abort", leave, { once: true });
      this.serve();
    });
  }

  /** In flight now: over all, for an installation, for a receiver. */
  inFlight(installation?: number, receiver?: string): number {
    if (receiver !== undefined) return this.byReceiver.get(receiver) ?? 0;
    if (installation !== undefined) return this.byInstallation.get(installation) ?? 0;
    return this.held;
  }

  private fits(w: Pick<Waiter, "installation" | "receiver">): boolean {
    return (
      this.held < this.shares.total &&
      (this.byInstallation.get(w.installation) ?? 0) < this.shares.perInstallation &&
      (this.byReceiver.get(w.receiver) ?? 0) < this.shares.perReceiver
    );
  }

  private hold(w: Waiter): () => void {
    this.held += 1;
    bump(this.byInstallation, w.installation, 1);
    bump(this.byReceiver, w.receiver, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held -= 1;
      bump(this.byInstallation, w.installation, -1);
      bump(this.byReceiver, w.receiver, -1);
      this.serve();
    };
  }

  /** Lets in, oldest first, every waiter that fits now. */
  private serve(): void {
    for (let i = 0; i < this.waiting.length && this.held < this.shares.total; ) {
      const w = this.waiting[i]!;
      if (!this.fits(w)) {
        i += 1;
        continue;
      }
      this.waiting.splice(i, 1);
      w.take();
    }
  }
}

function bump<K>(counts: Map<K, number>, key: K, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
