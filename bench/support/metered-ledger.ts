/**
 * A ledger wrapped to count its durable commits and the time spent in it,
 * so that a benchmark can say how much of a command's cost is the ledger's.
 *
 * The SQLite ledger does all its work synchronously before its promise
 * settles, so timing the call itself times the transaction, fsync included.
 */
import { performance } from "node:perf_hooks";
import type { Ledger } from "../../src/ledger/ledger.js";

/**
 * Calls that commit a write transaction (`takeEffects` only when it took
 * something). On SQLite `completeEffect` and `putReflection` commit without
 * an fsync (src/ledger/sqlite/unsynced-commit.ts); they are counted all the same.
 */
const WRITES = new Set<string>([
  "acquire", "renew", "release", "forceRelease", "note", "markExpired", "markReminded",
  "completeEffect", "failEffect", "extendEffects", "putReflection", "rememberRepo", "unparkEffects",
]);

export interface LedgerMeter {
  ms: number;
  commits: number;
  calls: number;
  /** Per method: calls and ms. */
  byMethod: Map<string, { calls: number; ms: number }>;
}

export function meteredLedger(inner: Ledger): { ledger: Ledger; meter: LedgerMeter } {
  const meter: LedgerMeter = { ms: 0, commits: 0, calls: 0, byMethod: new Map() };
  const ledger = new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== "function" || typeof prop !== "string" || prop === "close") return value;
      return (...args: unknown[]) => {
        const t = performance.now();
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        const ms = performance.now() - t;
        meter.ms += ms;
        meter.calls++;
        const m = meter.byMethod.get(prop) ?? { calls: 0, ms: 0 };
        m.calls++;
        m.ms += ms;
        meter.byMethod.set(prop, m);
        if (WRITES.has(prop)) meter.commits++;
        if (prop === "takeEffects") {
          void (result as Promise<unknown[]>).then((taken) => {
            if (taken.length > 0) meter.commits++;
          }, () => undefined);
        }
        return result;
      };
    },
  });
  return { ledger, meter };
}

/** "putReflection 1.2 s/1000, …": the costliest methods first. */
export function describeMeter(meter: LedgerMeter, top = 6): string {
  return [...meter.byMethod]
    .sort((a, b) => b[1].ms - a[1].ms)
    .slice(0, top)
    .map(([name, m]) => `${name} ${(m.ms / m.calls).toFixed(2)} ms × ${m.calls}`)
    .join(", ");
}
