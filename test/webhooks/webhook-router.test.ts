/**
 * The webhook router (src/webhooks/webhook-router.ts), through a real Probot
 * and its `receive`: each delivery's outcome is told once, after the last of
 * its handlers (its action's, its event's and any event's) has ended, from
 * what the ledger noted in its async context; a failed one once, by
 * Probot's `onError`, with a DeliveryFailed that carries no payload.
 */
import { randomUUID } from "node:crypto";
import { Probot } from "probot";
import { describe, expect, it } from "vitest";
import { DeliveryFailed } from "../../src/webhooks/delivery-errors.js";
import { type DeliveryOutcome, noteDelivery } from "../../src/webhooks/delivery-outcome.js";
import { webhookRouter } from "../../src/webhooks/webhook-router.js";

type Told = Array<[DeliveryOutcome, string]>;

async function routed(onTold?: () => void): Promise<{ probot: Probot; router: ReturnType<typeof webhookRouter>; told: Told; errors: unknown[] }> {
  const probot = new Probot({ appId: 1, githubToken: "test-token", logLevel: "fatal" });
  await probot.ready();
  const told: Told = [];
  const errors: unknown[] = [];
  const log = { info: () => undefined, error: () => undefined };
  const router = webhookRouter(probot, {
    log,
    watch: (outcome, event) => {
      onTold?.();
      told.push([outcome, `${String(event?.name)}.${String(event?.action)}`]);
    },
  });
  probot.onError((e) => void errors.push(...(e as AggregateError).errors));
  return { probot, router, told, errors };
}

const receive = (probot: Probot, name: string, payload: object, id: string = randomUUID()) => probot.receive({ id, name, payload } as never);
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("the webhook router", () => {
  it("tells a delivery's outcome once, when the last of its action's, event's and any event's handlers has ended", async () => {
    const ended: string[] = [];
    // What had ended when the outcome was told.
    const endedWhenTold: string[][] = [];
    const { probot, router, told } = await routed(() => endedWhenTold.push([...ended].sort()));
    const slow = (name: string) => async () => {
      await tick();
      ended.push(name);
    };
    router.on("issues.opened", async () => void ended.push("action"));
    router.on(["issues", "push"], slow("event"));
    router.onAny(slow("any"));
    router.onAny(async () => void ended.push("any, at once"));
    router.on("issues.closed", async () => void ended.push("not this one"));
    await receive(probot, "issues", { action: "opened" });
    expect(ended.sort()).toEqual(["action", "any", "any, at once", "event"]);
    expect(told).toEqual([["ignored", "issues.opened"]]);
    expect(endedWhenTold).toEqual([["action", "any", "any, at once", "event"]]);
  });

  it("tells handled, or duplicate, from what the ledger noted in any of its handlers", async () => {
    const { probot, router, told } = await routed();
    router.on("issues", async (context) => {
      await tick();
      if (context.payload.action === "edited") noteDelivery(false);
    });
    router.onAny(async (context) => {
      if ((context.payload as { action?: string }).action === "closed") noteDelivery(true);
    });
    await receive(probot, "issues", { action: "edited" });
    await receive(probot, "issues", { action: "closed" });
    expect(told).toEqual([
      ["handled", "issues.edited"],
      ["duplicate", "issues.closed"],
    ]);
  });

  it("tells two deliveries apart when they run at once, the same payload object included", async () => {
    const { probot, router, told } = await routed();
    router.on("issues", async (context) => {
      await tick();
      if (context.id === "applied") noteDelivery(false);
    });
    router.onAny(async () => tick());
    const payload = { action: "labeled" };
    await Promise.all([receive(probot, "issues", payload, "applied"), receive(probot, "issues", payload, "seen"), receive(probot, "issues", { action: "labeled" })]);
    expect(told.map(([o]) => o).sort()).toEqual(["handled", "ignored", "ignored"]);
  });

  it("tells a failed delivery once, and hands Probot a DeliveryFailed naming the delivery, without its payload", async () => {
    const { probot, router, told, errors } = await routed();
    router.on("issues", async () => {
      throw Object.assign(new Error("GitHub is down"), { status: 502 });
    });
    router.onAny(async () => tick());
    await expect(receive(probot, "issues", { action: "opened", secret: "PAYLOAD" }, "d-9")).rejects.toThrow("GitHub is down");
    expect(told).toEqual([["failed", "issues.opened"]]);
    expect(errors).toHaveLength(1);
    const failed = errors[0] as DeliveryFailed;
    expect(failed).toBeInstanceOf(DeliveryFailed);
    expect(failed).toMatchObject({ status: 502, delivery: "d-9", webhook: "issues.opened" });
    expect(JSON.stringify(failed)).not.toContain("PAYLOAD");
    expect((failed as { event?: unknown }).event).toBeUndefined();
  });
});
