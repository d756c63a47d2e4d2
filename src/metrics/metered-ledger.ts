/**
 * The ledger, counting each call by operation and outcome and timing it, for
 * /metrics. Wrapped once where the app builds its ledger, so that handlers,
 * the drainer and the sweeper need not know about metrics.
 *
 * The SQLite ledger does all its work synchronously before its promise
 * settles, so timing until it settles times the transaction for both
 * backends.
 */
import { performance } from "node:perf_hooks";
import type { Ledger } from "../ledger/ledger.js";
import type { AppMetrics } from "./app-metrics.js";
import { noteDelivery } from "../webhooks/delivery-outcome.js";

/** `forceRelease` -> `force_release`: label values in Prometheus' own style. */
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The result's outcome (`duplicate` for a redelivery), or "ok" for calls that answer something else. */
function outcomeOf(result: unknown): string {
  const r = result as { outcome?: unknown; duplicate?: unknown } | null;
  if (r && typeof r === "object") {
    if (r.duplicate === true) return "duplicate";
    if (typeof r.outcome === "string") return r.outcome;
  }
  return "ok";
}

/** Methods passed through as they are: `close`, and `watchEvents`, which answers its unsubscribe at once (not a promise). */
const UNMETERED = new Set(["close", "watchEvents"]);

export function meteredLedger(inner: Ledger, metrics: AppMetrics): Ledger {
  const names = new Map<string, string>();
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== "function" || typeof prop !== "string") return value;
      if (UNMETERED.has(prop)) return (value as (...a: unknown[]) => unknown).bind(target);
      let op = names.get(prop);
      if (op === undefined) names.set(prop, (op = snake(prop)));
      const name = op;
      return async (...args: unknown[]) => {
        const t = performance.now();
        try {
          const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          metrics.ledgerOperation(name, outcomeOf(result), (performance.now() - t) / 1000);
          const duplicate = (result as { duplicate?: unknown } | null)?.duplicate;
          if (typeof duplicate === "boolean") noteDelivery(duplicate);
          return result;
        } catch (error) {
          metrics.ledgerOperation(name, "error", (performance.now() - t) / 1000);
          throw error;
        }
      };
    },
  });
}
