/**
 * The deliveries being handled, so that shutdown can wait for their
 * transactions, each with a deadline past which it is answered 500.
 */
import { DeliverySteps, withSteps } from "./delivery-steps.js";

/**
 * How long a delivery may take before the app answers 500. Probot's webhook
 * middleware answers 202 after 9 s whatever happens, and GitHub records that
 * as a success; the PostgreSQL connect timeout (3 s, one retry) fits under this.
 */
export const DELIVERY_DEADLINE_MS = 7_000;

/**
 * A delivery's work still running at its deadline. The message says what it
 * was waiting for (and `github`, `code` which GitHub request last failed);
 * `work` settles when the work does, so that whoever knows the delivery can
 * log how it ended (delivery-errors.ts).
 */
export class DeadlinePassed extends Error {
  readonly status = 500;
  readonly github?: string;
  readonly code?: string;
  readonly #work: Promise<unknown>;
  constructor(deadlineMs: number, steps: DeliverySteps, work: Promise<unknown>) {
    super(`not handled within ${deadlineMs} ms, ${steps.describe()}; GitHub may redeliver`);
    const failure = steps.lastGitHubFailure;
    if (failure) this.github = failure.request;
    if (failure?.code) this.code = failure.code;
    this.#work = work;
  }
  get work(): Promise<unknown> {
    return this.#work;
  }
}
Object.defineProperty(DeadlinePassed.prototype, "name", { value: "DeadlinePassed" });

export interface Deliveries {
  /** Runs a delivery's work, so that shutdown waits for it. */
  track: <T>(work: () => Promise<T>) => Promise<T>;
  /** Takes no more deliveries (they are answered 503) and waits for those in flight. */
  settle(): Promise<void>;
}

export function trackDeliveries(deadlineMs: number): Deliveries {
  let shuttingDown = false;
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(work: () => Promise<T>): Promise<T> => {
    if (shuttingDown) throw Object.assign(new Error("shutting down; GitHub may redeliver"), { status: 503 });
    const steps = new DeliverySteps();
    const p = withSteps(steps, work);
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p)).catch(() => undefined);
    // Answered 500 before the webhook middleware answers 202 (at 9 s) whatever
    // happens: GitHub then lists the delivery as failed, and it can be
    // redelivered. If the work commits after all, the redelivery is a
    // duplicate and changes nothing.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new DeadlinePassed(deadlineMs, steps, p)),
        deadlineMs,
      );
    });
    return Promise.race([p, late]).finally(() => clearTimeout(timer));
  };
  return {
    track,
    async settle() {
      shuttingDown = true;
      await Promise.allSettled([...inFlight]);
    },
  };
}
