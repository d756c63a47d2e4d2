/**
 * A command's decision as a value, in tables (prow's manner): for a comment
 * and for the API (which shows only a tenure that begins or ends), each
 * operation's effects for each case the ledger's answer may come to, chosen
 * and completed as the transaction and the outbox will (effect-cases.ts,
 * reply-fill.ts). No ledger and no GitHub: the decision is data.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../../src/config/config.js";
import type { LeaseView, Outcome, Reply } from "../../src/commands/reply.js";
import { replyOf } from "../../src/github/reply-fill.js";
import { type EffectCases, effectsFor } from "../../src/ledger/leases/effect-cases.js";
import type { Holder, Lease, LedgerResult } from "../../src/ledger/leases/lease-types.js";
import { claimEffects, commandOptions, type Deciding, releaseEffects, renewEffects } from "../../src/leasing/lease-decision.js";
import type { LeaseTarget } from "../../src/leasing/lease-target.js";
import type { ReflectPayload } from "../../src/outbox/effects.js";

const HOUR = 3_600_000;
const NOW = 1_800_000_000_000;
const alice: Holder = { id: 11, login: "alice" };
const bob: Holder = { id: 22, login: "bob" };
const lease = (holder: Holder, token: number): Lease => ({
  repoId: 100,
  repo: "octo/widgets",
  issue: 5,
  holder,
  token,
  acquiredAt: NOW,
  expiresAt: NOW + HOUR,
  heldBy: { kind: "time" },
});

/** A comment's target: every answer gets a reply. */
const comment: LeaseTarget = {
  delivery: "d-1",
  installation: 7,
  repo: { id: 100, owner: "octo", name: "widgets" },
  issue: { number: 5, labels: [] },
  actor: { ...alice, type: "User", association: "NONE" },
  reply: (outcome: Outcome, view: LeaseView | null, extra: Partial<Reply> = {}) => ({
    op: "claim",
    outcome,
    issue: 5,
    at: NOW,
    command: "/claim",
    actor: "alice",
    lease: view,
    ignored: 0,
    ...extra,
  }),
};
/** The API's: only changes show. */
const api: LeaseTarget = { ...comment, changesOnly: true, cause: "api" };

/** The answers, one per case. */
const ANSWERS: Record<string, LedgerResult> = {
  acquired: { outcome: "acquired", lease: lease(alice, 4), newTenure: true },
  "acquired.again": { outcome: "acquired", lease: lease(alice, 4), newTenure: false },
  held: { outcome: "held", lease: lease(bob, 3) },
  "held.handedOver": { outcome: "held", lease: lease(bob, 4), handedOver: lease(alice, 3) },
  queued: { outcome: "queued", lease: lease(bob, 3), position: 2, until: NOW + HOUR },
  limit: { outcome: "limit", limit: 1, held: [{ ...lease(alice, 1), issue: 9 }] },
  renewed: { outcome: "renewed", lease: lease(alice, 4) },
  not_holder: { outcome: "not_holder", lease: lease(bob, 3) },
  released: { outcome: "released", lease: lease(alice, 3) },
  "released.nothing": { outcome: "released", lease: null },
  "released.handoff": { outcome: "released", lease: lease(alice, 3), handoff: lease(bob, 4) },
  left_queue: { outcome: "left_queue", lease: lease(bob, 3) },
};

type Shown = { op?: string; outcome: string | null; reconcile: boolean; holder?: string | null; token?: number };

/** What the decision writes for `answer`, as the outbox will show it: each effect's reply (its op, outcome and lease) and whether labels follow. */
function shown(cases: EffectCases, answer: string): Shown[] {
  return effectsFor(cases, ANSWERS[answer]!, "reply", 0).map((e) => {
    const p = e.payload as ReflectPayload;
    const reply = replyOf(p);
    if (!reply) return { outcome: null, reconcile: p.reconcile };
    return { op: reply.op, outcome: reply.outcome, reconcile: p.reconcile, holder: reply.lease?.holder ?? null, ...(reply.lease ? { token: reply.lease.token } : {}) };
  });
}

const decide = (t: LeaseTarget): Deciding => ({ t, key: { repoId: 100, repo: "octo/widgets", issue: 5 }, limit: 0, now: NOW });
const claim = (t: LeaseTarget) => claimEffects(decide(t), DEFAULT_CONFIG, {}, {});
const renew = (t: LeaseTarget) => renewEffects(decide(t), DEFAULT_CONFIG);
const release = (t: LeaseTarget) => releaseEffects(decide(t), DEFAULT_CONFIG);

interface Row {
  name: string;
  cases: EffectCases;
  answer: keyof typeof ANSWERS;
  writes: Shown[];
}

const ROWS: Row[] = [
  { name: "a comment's claim that begins a tenure shows it, labels and all", cases: claim(comment), answer: "acquired", writes: [{ op: "claim", outcome: "acquired", reconcile: true, holder: "alice", token: 4 }] },
  { name: "the API's claim that begins a tenure shows it too", cases: claim(api), answer: "acquired", writes: [{ op: "claim", outcome: "acquired", reconcile: true, holder: "alice", token: 4 }] },
  { name: "a comment's claim by the holder is answered", cases: claim(comment), answer: "acquired.again", writes: [{ op: "claim", outcome: "acquired", reconcile: true, holder: "alice", token: 4 }] },
  { name: "the API's claim by the holder (a heartbeat) writes nothing", cases: claim(api), answer: "acquired.again", writes: [] },
  { name: "a comment's claim of a held issue says who holds it, and changes no label", cases: claim(comment), answer: "held", writes: [{ op: "claim", outcome: "held", reconcile: false, holder: "bob", token: 3 }] },
  { name: "the API's claim of a held issue writes nothing", cases: claim(api), answer: "held", writes: [] },
  {
    name: "a claim that finds the lease run out and hands it to the first in line posts their handoff first",
    cases: claim(comment),
    answer: "held.handedOver",
    writes: [
      { op: "handoff", outcome: "acquired", reconcile: true, holder: "bob", token: 4 },
      { op: "claim", outcome: "held", reconcile: false, holder: "bob", token: 4 },
    ],
  },
  { name: "through the API, only that handoff shows", cases: claim(api), answer: "held.handedOver", writes: [{ op: "handoff", outcome: "acquired", reconcile: true, holder: "bob", token: 4 }] },
  { name: "a place in line is answered with the lease it waits for", cases: claim(comment), answer: "queued", writes: [{ op: "claim", outcome: "queued", reconcile: false, holder: "bob", token: 3 }] },
  { name: "a claim over the limit is refused without a lease", cases: claim(comment), answer: "limit", writes: [{ op: "claim", outcome: "forbidden", reconcile: false, holder: null }] },
  { name: "the API's refusal over the limit writes nothing (its answer says why)", cases: claim(api), answer: "limit", writes: [] },
  { name: "a comment's renewal shows the new term", cases: renew(comment), answer: "renewed", writes: [{ op: "claim", outcome: "renewed", reconcile: true, holder: "alice", token: 4 }] },
  { name: "the API's renewal writes nothing", cases: renew(api), answer: "renewed", writes: [] },
  { name: "a renewal by someone else is refused, labels untouched", cases: renew(comment), answer: "not_holder", writes: [{ op: "claim", outcome: "not_holder", reconcile: false, holder: "bob", token: 3 }] },
  { name: "a release shows the tenure that ended", cases: release(comment), answer: "released", writes: [{ op: "claim", outcome: "released", reconcile: true, holder: "alice", token: 3 }] },
  { name: "the API's release shows it too", cases: release(api), answer: "released", writes: [{ op: "claim", outcome: "released", reconcile: true, holder: "alice", token: 3 }] },
  { name: "a comment's release of nothing is answered", cases: release(comment), answer: "released.nothing", writes: [{ op: "claim", outcome: "released", reconcile: true, holder: null }] },
  { name: "the API's release of nothing writes nothing", cases: release(api), answer: "released.nothing", writes: [] },
  {
    name: "a release that hands the lease on posts the handoff, naming the new tenure",
    cases: release(api),
    answer: "released.handoff",
    writes: [{ op: "handoff", outcome: "acquired", reconcile: true, holder: "bob", token: 4 }],
  },
  { name: "leaving the line is answered to a comment", cases: release(comment), answer: "left_queue", writes: [{ op: "claim", outcome: "left_queue", reconcile: false, holder: "bob", token: 3 }] },
];

describe("a command's decision, by the case of the ledger's answer", () => {
  it.each(ROWS)("$name", (row) => {
    expect(shown(row.cases, row.answer)).toEqual(row.writes);
  });

  it("a handoff's reply names the tenure that ended as the answer gives it", () => {
    const [effect] = effectsFor(release(comment), ANSWERS["released.handoff"]!, "reply", 0);
    expect(replyOf(effect!.payload as ReflectPayload)).toMatchObject({ mentionHolder: true, previous: { lease: { holder: "alice", token: 3 }, ended: "released" } });
  });

  it("a place in line and a limit's reason come from the answer", () => {
    const [queued] = effectsFor(claim(comment), ANSWERS.queued!, "reply", 0);
    expect(replyOf(queued!.payload as ReflectPayload)).toMatchObject({ position: 2, queuedUntil: NOW + HOUR });
    const [limit] = effectsFor(claim(comment), ANSWERS.limit!, "reply", 0);
    expect(replyOf(limit!.payload as ReflectPayload)!.reason).toContain("You already hold 1 lease in this repository (#9); the limit is 1");
  });

  it("the options carry the delivery, the budget and, for the API, what counts and what is recorded", () => {
    const effects = claim(comment);
    expect(commandOptions({ ...decide(comment), limit: 5 }, effects)).toEqual({ delivery: "d-1", installation: 7, repliesPerHour: 5, effects });
    const next = { ...api, recordAcquiredOnly: true };
    expect(commandOptions(decide(next), effects)).toEqual({ delivery: "d-1", cause: "api", installation: 7, recordOnly: ["acquired"], repliesPerHour: 0, countsOnlyPosts: true, effects });
  });
});
