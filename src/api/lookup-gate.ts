/**
 * How many identity look-ups of tokens not known yet may run, per client
 * address (client-address.ts) and overall, and how many of them GitHub may
 * refuse.
 *
 * Each look-up costs calls to GitHub; a spray of made-up tokens from one
 * address would cost one each. What limits the spray is the tokens GitHub
 * refused: a bucket per address (API_UNKNOWN_TOKEN_LIMIT, `refused`, refilled
 * `perMinute`, up to `burst`) that a refusal, or a look-up GitHub could not
 * answer, empties by one. A good token takes nothing from it, so a fleet of
 * agents with fresh tokens of their own, starting together behind one
 * address, is asked about at once. So that a spray sent all at once does not
 * pass before its refusals are counted, each look-up in flight holds one of
 * the bucket's tokens until it ends (given back when GitHub names an
 * account): at no time can more look-ups run than the bucket could pay for if
 * all were refused, and a spray costs GitHub no more look-ups than a limit
 * that counted every token. Look-ups also run at most `perAddress` at once
 * per address and `overall` at once in all; a request over these waits for
 * one to end (at most `queue` waiting per address), rather than being
 * turned away while the bucket may yet give back what is held.
 *
 * In memory, per replica, as the API's other limits (rate-limit.ts).
 */
import { RateLimited, type RateLimitSettings } from "./rate-limit.js";

export interface LookupGateSettings {
  /** Look-ups GitHub refused, per address: `perMinute` added a minute up to `burst`; perMinute 0: no limit. */
  refused: RateLimitSettings;
  /** Look-ups running at once per address; default 10. */
  perAddress?: number;
  /** Look-ups running at once overall; default 100. */
  overall?: number;
  /** Requests of one address waiting for a look-up; past it the answer is 429. Default 100. */
  queue?: number;
}

/** How a look-up ended: GitHub named an account, or it did not (refused the token, or did not answer). */
export type LookupOutcome = "known" | "unknown";

export const REFUSED_MESSAGE = "Too many tokens GitHub refused from this address";
const BUSY_MESSAGE = "Too many tokens waiting to be asked of GitHub from this address";

interface AddressState {
  /** The bucket: tokens left at `at` (fractional; refilled with time). */
  tokens: number;
  at: number;
  /** Look-ups running: each holds one of `tokens`. */
  running: number;
  /** Requests waiting for one of this address's look-ups to end. */
  waiting: Array<() => void>;
}

const MAX_ADDRESSES = 100_000;

export class LookupGate {
  private readonly addresses = new Map<string, AddressState>();
  /** Requests waiting for any look-up to end (the overall bound). */
  private readonly waitingOverall: Array<() => void> = [];
  private running = 0;
  private readonly perAddress: number;
  private readonly overall: number;
  private readonly queue: number;

  constructor(
    private readonly settings: LookupGateSettings,
    private readonly clock: () => number = Date.now,
  ) {
    this.perAddress = Math.max(1, settings.perAddress ?? 10);
    this.overall = Math.max(1, settings.overall ?? 100);
    this.queue = Math.max(0, settings.queue ?? 100);
  }

  /**
   * Waits for a look-up of `address` to be let run; resolves to the call that
   * says how it ended (exactly once). Throws RateLimited when the address's
   * refusals have used its bucket up (Retry-After: until one is back), or
   * when too many of its requests already wait.
   */
  async acquire(address: string): Promise<(outcome: LookupOutcome) => void> {
    for (;;) {
      const s = this.state(address);
      const verdict = this.admit(s);
      if (verdict === "run") {
        s.running++;
        this.running++;
        let done = false;
        return (outcome) => {
          if (done) return;
          done = true;
          this.end(address, s, outcome);
        };
      }
      if (typeof verdict === "number") throw new RateLimited(verdict, REFUSED_MESSAGE);
      if (s.waiting.length >= this.queue) throw new RateLimited(1, BUSY_MESSAGE);
      await new Promise<void>((wake) => (verdict === "address" ? s.waiting : this.waitingOverall).push(wake));
    }
  }

  /** Look-ups running now (for tests and metrics). */
  get inFlight(): number {
    return this.running;
  }

  /**
   * "run"; "address" or "overall": wait for a look-up there to end; or the
   * seconds until the bucket has a token again, when none is held by a
   * look-up that might give it back.
   */
  private admit(s: AddressState): "run" | "address" | "overall" | number {
    const { perMinute } = this.settings.refused;
    if (perMinute > 0 && this.refill(s) - s.running < 1) {
      if (s.running > 0) return "address";
      const perMs = perMinute / 60_000;
      return Math.max(1, Math.ceil((1 - s.tokens) / perMs / 1000));
    }
    if (s.running >= this.perAddress) return "address";
    if (this.running >= this.overall) return "overall";
    return "run";
  }

  private end(address: string, s: AddressState, outcome: LookupOutcome): void {
    s.running--;
    this.running--;
    if (outcome === "unknown" && this.settings.refused.perMinute > 0) {
      this.refill(s);
      s.tokens = Math.max(0, s.tokens - 1);
    }
    // Every waiter looks again, in the order they came: one may run now, the rest wait on, or learn that nothing
    // they wait for can give a token back (then they are answered 429 rather than left waiting).
    for (const wake of s.waiting.splice(0)) wake();
    for (const wake of this.waitingOverall.splice(0)) wake();
    if (s.running === 0 && s.waiting.length === 0 && s.tokens >= this.settings.refused.burst) this.addresses.delete(address);
  }

  private refill(s: AddressState): number {
    const { perMinute, burst } = this.settings.refused;
    const now = this.clock();
    s.tokens = Math.min(burst, s.tokens + (now - s.at) * (perMinute / 60_000));
    s.at = now;
    return s.tokens;
  }

  private state(address: string): AddressState {
    let s = this.addresses.get(address);
    if (s) {
      // Re-inserted: the Map's first key is the one least recently seen, dropped when there are too many.
      this.addresses.delete(address);
    } else {
      s = { tokens: this.settings.refused.burst, at: this.clock(), running: 0, waiting: [] };
    }
    this.addresses.set(address, s);
    if (this.addresses.size > MAX_ADDRESSES) this.forgetOldest();
    return s;
  }

  /** Drops the least recently seen address with nothing running or waiting (one with a look-up under way stays). */
  private forgetOldest(): void {
    for (const [key, s] of this.addresses) {
      if (s.running === 0 && s.waiting.length === 0) {
        this.addresses.delete(key);
        return;
      }
    }
  }
}
