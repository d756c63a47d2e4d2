/**
 * `GET /metrics` on the real server (`probot run` in its own process, GitHub
 * faked over HTTP): what a claim leaves in the metrics, and who may read them.
 */
import { describe, expect, it } from "vitest";
import { alice, bob, commentPayload, REPO } from "../support/payloads.js";
import { type ServerProcess, waitFor } from "../support/server-process.js";
import { replies } from "./issue-view.js";
import { E2E_WRITES, withLiveApp } from "./live-app.js";

async function scrape(server: ServerProcess, token?: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${server.url}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  return { status: res.status, text: await res.text() };
}

/** The value of the series `name{labels}` in Prometheus' text format, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe.concurrent("GET /metrics", () => {
  it("with METRICS=1, counts a claim's delivery, its acquire, its GitHub writes and its effect's latency, naming nobody", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      const server = await live.start({ METRICS: "1" });
      await live.comment(server, "/claim", alice);
      await waitFor("alice's reply", () => replies(fake, 1).length === 1);
      await live.settled(server);

      const { status, text } = await waitFor("the effect's latency in /metrics", async () => {
        const s = await scrape(server);
        return (sample(s.text, "issue_leases_effect_latency_seconds_count", { kind: "reflect" }) ?? 0) >= 1 && s;
      });
      expect(status).toBe(200);
      expect(sample(text, "issue_leases_deliveries_total", { event: "issue_comment.created", outcome: "handled" })).toBe(1);
      expect(sample(text, "issue_leases_ledger_operations_total", { op: "acquire", outcome: "acquired" })).toBe(1);
      expect(sample(text, "issue_leases_ledger_operation_duration_seconds_count", { op: "acquire" })).toBe(1);
      // Labels, assignee and reply: writes, each answered 2xx by GitHub (REST: a request each; GraphQL: one
      // document, after one that creates the labels the repository lacks).
      const writes = sample(text, "issue_leases_github_requests_total", { method: "write", status: "2xx" });
      if (E2E_WRITES === "rest") expect(writes).toBeGreaterThanOrEqual(3);
      else expect(writes).toBe(2);
      expect(sample(text, "issue_leases_effect_latency_seconds_count", { kind: "reflect" })).toBe(1);
      expect(sample(text, "issue_leases_effect_latency_seconds_sum", { kind: "reflect" })).toBeGreaterThan(0);
      expect(sample(text, "issue_leases_effect_attempts_total", { kind: "reflect", outcome: "completed" })).toBe(1);
      expect(sample(text, "issue_leases_outbox_effects", { state: "pending" })).toBe(0);
      expect(sample(text, "issue_leases_outbox_effects", { state: "parked" })).toBe(0);
      expect(sample(text, "issue_leases_sweeps_total")).toBeGreaterThanOrEqual(1);
      // prom-client's process metrics, on the app's registry.
      expect(sample(text, "process_resident_memory_bytes")).toBeGreaterThan(0);
      // No user data: no login, no repository, no repository id, no delivery id.
      for (const secret of ["alice", REPO.owner, REPO.name, String(REPO.id)]) expect(text).not.toContain(secret);
    }), 90_000);

  it("without METRICS or METRICS_TOKEN, is not there (404), and /health is", () =>
    withLiveApp(async (live) => {
      const server = await live.start();
      expect((await scrape(server)).status).toBe(404);
      expect((await server.health()).status).toBe(200);
    }), 60_000);

  it("with METRICS_TOKEN, answers 401 without the token or with another, and 200 with it", () =>
    withLiveApp(async (live) => {
      const token = "metrics-token-0123456789";
      const server = await live.start({ METRICS_TOKEN: token });
      const refused = await fetch(`${server.url}/metrics`);
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(await refused.text()).not.toContain("issue_leases_");
      expect((await scrape(server, "not-the-token")).status).toBe(401);

      // A delivery with a forged signature names an event of its choosing: counted apart, without it.
      const forged = await server.send("made_up_event", commentPayload({ body: "/claim", author: bob }), { secret: "not-the-secret" });
      expect(forged).toBe(400);
      const { status, text } = await scrape(server, token);
      expect(status).toBe(200);
      expect(sample(text, "issue_leases_deliveries_total", { event: "unverified", outcome: "rejected" })).toBe(1);
      expect(text).not.toContain("made_up_event");
    }), 60_000);
});
