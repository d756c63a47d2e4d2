/**
 * A reply decided before the ledger answered, as the transaction writes it
 * (effect-cases.ts) and the outbox completes it (reply-fill.ts): the case's
 * effects chosen, the answer's leases filled in, and the reply budget
 * applied: past the limit the reply goes and the labels stay, but a
 * handoff's reply, which is for the one the lease passed to, is posted
 * whatever the actor's budget.
 */
import { describe, expect, it } from "vitest";
import type { Reply } from "../../src/commands/reply.js";
import { replyOf } from "../../src/github/reply-fill.js";
import { type CaseEffect, effectsFor, resultCase } from "../../src/ledger/leases/effect-cases.js";
import type { Lease, LedgerResult } from "../../src/ledger/leases/lease-types.js";
import { reflectEffect, type ReflectPayload } from "../../src/outbox/effects.js";

const reply = (over: Partial<Reply>): Reply => ({ op: "release", outcome: "released", issue: 1, at: 0, command: "/release", actor: "bob", lease: null, ignored: 0, ...over });
const lease = (login: string, token: number): Lease => ({
  repoId: 9,
  repo: "o/r",
  issue: 1,
  holder: { id: token, login },
  token,
  acquiredAt: 1000,
  expiresAt: 5000,
  heldBy: { kind: "time" },
});
const released: LedgerResult = { outcome: "released", lease: lease("bob", 3) };
const handedOn: LedgerResult = { outcome: "released", lease: lease("bob", 3), handoff: lease("carol", 4) };

/** The reply an effect of `cases`' answer to `result` posts, within `budget`. */
function posted(effect: CaseEffect, result: LedgerResult, budget: "reply" | "notice" | "silent" = "reply"): Reply | null | "none" {
  const [written] = effectsFor({ any: [effect] }, result, budget, 5);
  return written ? replyOf(written.payload as ReflectPayload) : "none";
}

describe("a decided reply", () => {
  it("names the case of each answer: a new tenure or the same one, a handoff, a release of nothing", () => {
    expect(resultCase({ outcome: "acquired", lease: lease("bob", 3), newTenure: true })).toBe("acquired");
    expect(resultCase({ outcome: "acquired", lease: lease("bob", 3), newTenure: false })).toBe("acquired.again");
    expect(resultCase({ outcome: "held", lease: lease("bob", 3), handedOver: lease("amy", 2) })).toBe("held.handedOver");
    expect(resultCase(handedOn)).toBe("released.handoff");
    expect(resultCase({ outcome: "released", lease: null })).toBe("released.nothing");
    expect(resultCase({ outcome: "expired", lease: lease("bob", 3) })).toBe("expired");
  });

  it("writes only the effects of the answer's case, else those of `any`", () => {
    const one = (kind: string): CaseEffect[] => [{ effect: { installation: 1, kind, payload: {} } }];
    const cases = { released: one("ended"), "released.handoff": one("handed"), any: one("other") };
    expect(effectsFor(cases, released, "reply", 0).map((e) => e.kind)).toEqual(["ended"]);
    expect(effectsFor(cases, handedOn, "reply", 0).map((e) => e.kind)).toEqual(["handed"]);
    expect(effectsFor(cases, { outcome: "not_holder", lease: null }, "reply", 0).map((e) => e.kind)).toEqual(["other"]);
    expect(effectsFor({ released: [] , any: one("other") }, released, "reply", 0)).toEqual([]);
  });

  it("is completed from the answer: the lease that ended, or the new tenure and the one before it", () => {
    const ended = { effect: reflectEffect(1, "o/r", { reconcile: true, reply: reply({}), fill: { lease: "lease" } }), withResult: true };
    expect(posted(ended, released)).toMatchObject({ outcome: "released", lease: { holder: "bob", token: 3 } });
    const template = reply({ op: "handoff", outcome: "acquired", mentionHolder: true });
    const handed = { effect: reflectEffect(1, "o/r", { reconcile: true, reply: template, fill: { lease: "handoff", previous: { from: "lease", ended: "released" } } }), withResult: true };
    expect(posted(handed, handedOn)).toMatchObject({ lease: { holder: "carol", token: 4 }, previous: { lease: { holder: "bob", token: 3 }, ended: "released" } });
  });

  it("a reply written complete is posted as written", () => {
    const whole = reply({ lease: { holder: "dan", token: 8, acquiredAt: 0, expiresAt: null } });
    expect(posted({ effect: reflectEffect(1, "o/r", { reconcile: true, reply: whole }) }, released)).toEqual(whole);
  });

  it("keeps the labels and drops the reply once silent; drops a refusal's effect whole", () => {
    const shows = { effect: reflectEffect(1, "o/r", { reconcile: true, reply: reply({}) }), budgeted: "keep" as const };
    const [kept] = effectsFor({ any: [shows] }, released, "silent", 5);
    expect((kept!.payload as ReflectPayload).reconcile).toBe(true);
    expect(replyOf(kept!.payload as ReflectPayload)).toBeNull();
    const refusal = { effect: reflectEffect(1, "o/r", { reconcile: false, reply: reply({ outcome: "forbidden" }) }), budgeted: "drop" as const };
    expect(posted(refusal, released, "silent")).toBe("none");
  });

  it("adds the notice to the first reply over the limit", () => {
    const shows = { effect: reflectEffect(1, "o/r", { reconcile: true, reply: reply({ reason: "Why." }) }), budgeted: "keep" as const };
    expect((posted(shows, released, "notice") as Reply).reason).toMatch(/^Why\.\n\nYou have reached 5 replies an hour in this repository/);
    expect(posted(shows, released, "reply")).toMatchObject({ reason: "Why." });
  });

  it("posts a handoff's reply whatever the actor's budget", () => {
    const handoff = reply({ op: "handoff", outcome: "acquired", mentionHolder: true });
    for (const budget of ["silent", "notice"] as const) {
      expect(posted({ effect: reflectEffect(1, "o/r", { reconcile: true, reply: handoff }), budgeted: "keep" }, released, budget)).toEqual(handoff);
    }
  });
});
