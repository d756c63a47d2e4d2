/**
 * A lease book for the handlers' table tests: it records each operation a
 * handler asks for and answers what the row says (a note answers itself,
 * with the detail it was given), and writes the effects the handler decided
 * for that answer's case (within the reply budget "reply"), each reply
 * completed from the answer as the outbox completes it. Reads answer `current`
 * (the live lease) and nothing else.
 */
import type { Holder, Lease } from "../../src/ledger/leases/lease-types.js";
import type { NewEffect } from "../../src/ledger/outbox/outbox-types.js";
import { type EffectCases, effectsFor } from "../../src/ledger/leases/effect-cases.js";
import type { LedgerResult } from "../../src/ledger/leases/lease-types.js";
import { REFLECT, type ReflectPayload } from "../../src/outbox/effects.js";
import { replyOf } from "../../src/github/reply-fill.js";

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
    // The case's effects as the transaction writes them, each reply completed as the outbox will post it.
    effects = effectsFor(opts.effects as EffectCases | undefined, result as unknown as LedgerResult, "reply", 0).map((e) =>
      e.kind === REFLECT ? { ...e, payload: { ...(e.payload as ReflectPayload), reply: replyOf(e.payload as ReflectPayload) } } : e,
    );
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
