/**
 * A lease book for the handlers' table tests: it records each operation a
 * handler asks for and answers what the row says (a note answers itself,
 * with the detail it was given), and writes what the handler's effects make
 * of that answer (within the reply budget "reply"). Reads answer `current`
 * (the live lease) and nothing else.
 */
import type { Holder, Lease } from "../../src/ledger/leases/lease-types.js";
import type { NewEffect } from "../../src/ledger/outbox/outbox-types.js";

/** One call the handler made on the ledger. */
export interface Call {
  op: string;
  holder: Holder | null;
  ttl?: number | null;
  opts: Record<string, unknown>;
}

/** A lease book that records each call and answers `answer` (any result, as the real ledger would have decided it). */
export function fakeLedger<L>(answer: Record<string, unknown> | undefined, current: Lease | null = null) {
  const calls: Call[] = [];
  let effects: NewEffect[] = [];
  const apply = (op: string, holder: Holder | null, opts: Record<string, unknown> = {}, ttl?: number | null) => {
    calls.push({ op, holder, ...(ttl !== undefined ? { ttl } : {}), opts });
    const result = op === "note" ? { outcome: "noted", lease: null, ...(opts.detail ? { detail: opts.detail } : {}) } : answer;
    if (result === undefined) throw new Error(`the handler called ${op}, which this row does not answer`);
    const made = opts.effects as ((r: unknown, budget: string) => NewEffect[]) | undefined;
    effects = made ? made(result, "reply") : [];
    return Promise.resolve({ ...result, duplicate: false });
  };
  const ledger = {
    acquire: (_k: unknown, holder: Holder, ttl: number | null, _now: number, opts?: Record<string, unknown>) => apply("acquire", holder, opts, ttl),
    renew: (_k: unknown, holder: Holder, ttl: number | null, _now: number, opts?: Record<string, unknown>) => apply("renew", holder, opts, ttl),
    release: (_k: unknown, holder: Holder, _now: number, opts?: Record<string, unknown>) => apply("release", holder, opts),
    forceRelease: (_k: unknown, actor: Holder, _now: number, opts?: Record<string, unknown>) => apply("forceRelease", actor, opts),
    note: (_k: unknown, actor: Holder | null, _now: number, opts?: Record<string, unknown>) => apply("note", actor, opts),
    current: () => Promise.resolve(current),
    history: () => Promise.resolve([]),
    queue: () => Promise.resolve([]),
  };
  return { ledger: ledger as unknown as L, calls, effects: () => effects };
}
