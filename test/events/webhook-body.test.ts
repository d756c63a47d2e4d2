/**
 * What a delivery carries: the event's JSON as it is, or Slack's (and
 * Discord's) `{"text": …}` with nothing in it that mentions anyone or forges
 * a link; and its id, one per event and target.
 */
import { describe, expect, it } from "vitest";
import type { LeaseEvent } from "../../src/ledger/events/event-types.js";
import { leaseEvent } from "../support/lease-events.js";
import { chatText, deliveryId, slackText, webhookBody } from "../../src/events/webhook-body.js";

describe("webhookBody", () => {
  it("is the event's JSON, its fields in the event's order, for `json`", () => {
    const e = leaseEvent();
    expect(webhookBody(e, "json")).toBe(JSON.stringify(e));
    expect(Object.keys(JSON.parse(webhookBody(e, "json")))).toEqual(["id", "seq", "type", "at", "repo", "issue", "holder", "token", "expires_at", "actor", "cause"]);
  });

  it("is exactly {text} for `slack`", () => {
    const body = JSON.parse(webhookBody(leaseEvent(), "slack"));
    expect(body).toEqual({ text: "alice claimed octo/app#12 (lease #3, until 14:00 UTC)" });
  });
});

describe("slackText", () => {
  const alice = { login: "alice", id: 101 };
  const bob = { login: "bob", id: 202 };

  it.each<[string, Partial<LeaseEvent>, string]>([
    ["a claim", {}, "alice claimed octo/app#12 (lease #3, until 14:00 UTC)"],
    ["a claim open-ended", { expires_at: null }, "alice claimed octo/app#12 (lease #3, open-ended)"],
    ["a claim ending another day", { expires_at: "2026-12-03T09:30:00.000Z" }, "alice claimed octo/app#12 (lease #3, until 2026-12-03 09:30 UTC)"],
    ["a claim for someone", { actor: bob }, "bob gave alice octo/app#12 (lease #3, until 14:00 UTC)"],
    ["an agent's claim", { holder: { ...alice, instance: "worker-3" } }, "alice (worker-3) claimed octo/app#12 (lease #3, until 14:00 UTC)"],
    ["a renewal", { type: "lease.renewed" }, "alice renewed octo/app#12 (lease #3, until 14:00 UTC)"],
    ["a pull request holding it", { type: "lease.renewed", cause: "work", actor: bob, expires_at: null }, "alice's lease on octo/app#12 follows its work (lease #3, open-ended)"],
    ["a release", { type: "lease.released" }, "alice released octo/app#12 (lease #3)"],
    ["a maintainer's release", { type: "lease.released", actor: bob, cause: "maintainer" }, "bob released alice's lease on octo/app#12 (lease #3)"],
    ["an expiry", { type: "lease.expired", actor: null, cause: "expiry" }, "alice's lease on octo/app#12 expired (lease #3)"],
    ["a close", { type: "lease.ended", actor: bob, cause: "close" }, "alice's lease on octo/app#12 ended: the issue was closed (lease #3)"],
    ["a label taken off", { type: "lease.ended", actor: bob, cause: "label_removed" }, "alice's lease on octo/app#12 ended: its label was taken off (lease #3)"],
    ["a maintainer's end", { type: "lease.ended", actor: bob, cause: "maintainer" }, "alice's lease on octo/app#12 ended by bob (lease #3)"],
    ["a handoff", { type: "lease.handed_off", token: 4, cause: "handoff" }, "octo/app#12 passed to alice, first in line (lease #4, until 14:00 UTC)"],
  ])("tells %s in one line", (_, fields, text) => {
    expect(slackText(leaseEvent(fields))).toBe(text);
  });

  it("escapes what others wrote: no mention, no link, no broken line", () => {
    const text = slackText(leaseEvent({ holder: { login: "alice", id: 101, instance: "<!channel> & @everyone\nnext" } }));
    expect(slackText(leaseEvent({ repo: "<@U123>/<https://evil.example|x>" }))).not.toMatch(/[<>]/);
    expect(text).not.toMatch(/[<>]/);
    expect(text).not.toContain("@everyone");
    expect(text).not.toContain("\n");
    expect(text).toContain("&lt;!channel&gt;");
    expect(text).toContain("&amp;");
  });

  it("chatText escapes &, < and > (in that order), breaks @ and cuts long text", () => {
    expect(chatText("a&lt;b")).toBe("a&amp;lt;b");
    expect(chatText("@here")).toBe("@\u200bhere");
    expect(chatText("x".repeat(100), 10)).toBe(`${"x".repeat(10)}…`);
  });
});

describe("deliveryId", () => {
  it("is the same for one event and target, and differs for another event, URL or format", () => {
    const id = deliveryId("41", "https://example.com/a", "json");
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(deliveryId("41", "https://example.com/a", "json")).toBe(id);
    expect(new Set([id, deliveryId("42", "https://example.com/a", "json"), deliveryId("41", "https://example.com/b", "json"), deliveryId("41", "https://example.com/a", "slack")]).size).toBe(4);
  });
});
