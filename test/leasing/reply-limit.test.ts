/**
 * The reply budget applied to a command's effects (reply-limit.ts): past the
 * limit the reply goes and the labels stay, but a handoff's reply, which is
 * for the one the lease passed to, is posted whatever the actor's budget.
 */
import { describe, expect, it } from "vitest";
import type { Reply } from "../../src/github/render.js";
import { withinBudget } from "../../src/leasing/reply-limit.js";
import { reflectEffect, type ReflectPayload } from "../../src/outbox/effects.js";

const reply = (over: Partial<Reply>): Reply => ({ op: "release", outcome: "released", issue: 1, at: 0, command: "/release", actor: "bob", lease: null, ignored: 0, ...over });
const payload = (e: { payload: unknown }) => e.payload as ReflectPayload;

describe("withinBudget", () => {
  it("keeps the labels and drops the reply once silent", () => {
    const [effect] = withinBudget([reflectEffect(1, "o/r", { reconcile: true, reply: reply({}) })], "silent", 5);
    expect(payload(effect!).reply).toBeNull();
    expect(payload(effect!).reconcile).toBe(true);
  });

  it("posts a handoff's reply whatever the actor's budget", () => {
    const handoff = reply({ op: "handoff", outcome: "acquired", mentionHolder: true });
    for (const budget of ["silent", "notice"] as const) {
      const [effect] = withinBudget([reflectEffect(1, "o/r", { reconcile: true, reply: handoff })], budget, 5);
      expect(payload(effect!).reply).toEqual(handoff);
    }
  });
});
