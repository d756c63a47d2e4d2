/**
 * The app's metrics, recorded through the real app on a real ledger
 * (deliveries through `probot.receive`, GitHub mocked with strict nock), and
 * the pieces on their own: the metered ledger's outcome labels, the outbox
 * gauges when the database is away, and the bearer token check.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Ledger } from "../../src/ledger/ledger.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { AppMetrics } from "../../src/metrics/app-metrics.js";
import { eventLabel, methodClass, statusLabel } from "../../src/metrics/metric-labels.js";
import { metricsSettings } from "../../src/settings/http-settings.js";
import { meteredLedger } from "../../src/metrics/metered-ledger.js";
import { bearerMatches, metricsHandler } from "../../src/metrics/metrics-handler.js";
import { GitHubMock, type Harness, startApp, strictNock } from "../support/app-harness.js";
import { alice, bob, commentPayload, INSTALLATION_ID, REPO } from "../support/payloads.js";

/** The value of one series, or undefined when absent. */
async function value(m: AppMetrics, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const metric = m.registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  const hit = values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x) && Object.keys(v.labels).length >= Object.keys(labels).length);
  return hit?.value;
}

const key = (issue: number) => ({ repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue });

describe("metrics recorded by the app", () => {
  let h: Harness;
  let gh: GitHubMock;
  let metrics: AppMetrics;
  let mock: ReturnType<typeof strictNock>;

  beforeEach(async () => {
    mock = strictNock();
    gh = new GitHubMock();
    metrics = new AppMetrics({ defaultMetrics: false });
    h = await startApp({ metrics });
  });
  afterEach(async () => {
    await h.close();
    mock.verify();
  });

  it("counts a claim, its redelivery, a comment with no command and a delivery that failed, with no user data in the text", async () => {
    // GitHub answers 500 to the config read: the delivery fails, and GitHub may redeliver it.
    gh.expect("GET", "/contents/.github/issue-leases.yml", 500, { message: "boom" });
    await expect(h.receive("issue_comment", commentPayload({ body: "/claim", author: bob, issue: 2 }), "d-0")).rejects.toThrow();
    const claim = commentPayload({ body: "/claim", author: alice });
    gh.config(null);
    await h.receive("issue_comment", claim, "d-1");
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();
    await h.receive("issue_comment", claim, "d-1");
    await h.receive("issue_comment", commentPayload({ body: "thanks!", author: bob }), "d-2");

    const ev = "issue_comment.created";
    expect(await value(metrics, "issue_leases_deliveries_total", { event: ev, outcome: "handled" })).toBe(1);
    expect(await value(metrics, "issue_leases_deliveries_total", { event: ev, outcome: "duplicate" })).toBe(1);
    expect(await value(metrics, "issue_leases_deliveries_total", { event: ev, outcome: "ignored" })).toBe(1);
    expect(await value(metrics, "issue_leases_deliveries_total", { event: ev, outcome: "failed" })).toBe(1);

    expect(await value(metrics, "issue_leases_ledger_operations_total", { op: "acquire", outcome: "acquired" })).toBe(1);
    expect(await value(metrics, "issue_leases_ledger_operations_total", { op: "acquire", outcome: "duplicate" })).toBe(1);
    expect(await value(metrics, "issue_leases_ledger_operation_duration_seconds", { op: "acquire", le: "+Inf" })).toBe(2);

    // The claim's effect: one attempt, completed, its latency observed; its writes 2xx, its label look-ups 404.
    expect(await value(metrics, "issue_leases_effect_attempts_total", { kind: "reflect", outcome: "completed" })).toBe(1);
    expect(await value(metrics, "issue_leases_effect_latency_seconds", { kind: "reflect", le: "+Inf" })).toBe(1);
    const writes = gh.writes().length;
    expect(await value(metrics, "issue_leases_github_requests_total", { method: "write", status: "2xx" })).toBe(writes);
    expect(await value(metrics, "issue_leases_github_requests_total", { method: "read", status: "404" })).toBe(2);

    const text = await metrics.registry.metrics();
    for (const secret of ["alice", "bob", "Codertocat", "Hello-World", String(REPO.id), "d-1"]) expect(text).not.toContain(secret);
  });

  it("counts an attempt GitHub answered 5xx as retried, and the request by its status", async () => {
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice }));
    gh.expect("POST", "/labels", 502, { message: "Bad Gateway" });
    await h.drain();
    expect(await value(metrics, "issue_leases_effect_attempts_total", { kind: "reflect", outcome: "retried" })).toBe(1);
    expect(await value(metrics, "issue_leases_effect_attempts_total", { kind: "reflect", outcome: "completed" })).toBeUndefined();
    expect(await value(metrics, "issue_leases_github_requests_total", { method: "write", status: "5xx" })).toBe(1);
    expect(await value(metrics, "issue_leases_effect_latency_seconds", { kind: "reflect", le: "+Inf" })).toBeUndefined();
    expect(await value(metrics, "issue_leases_outbox_effects", { state: "pending" })).toBe(1);
  });

  it("counts a secondary rate limit, which pauses the installation at least a minute whatever retry-after says", async () => {
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice }));
    gh.expect("POST", "/labels", 403, { message: "You have exceeded a secondary rate limit" }, { "retry-after": "1" });
    await h.drain();
    expect(await value(metrics, "issue_leases_github_rate_limited_total")).toBe(1);
    expect(await value(metrics, "issue_leases_effect_attempts_total", { kind: "reflect", outcome: "paused" })).toBe(1);
    expect(h.runtime.drainer.paused(h.now() + 59_999)).toEqual([INSTALLATION_ID]);
    expect(h.runtime.drainer.paused(h.now() + 60_000)).toEqual([]);
  });

  it("counts a sweep and the leases it ended", async () => {
    gh.config(null);
    await h.receive("issue_comment", commentPayload({ body: "/claim 1h", author: alice }));
    gh.claim(1, "alice", { createClaimed: true, token: 1 });
    await h.drain();
    h.advance(2 * 3600_000);
    await h.runtime.sweeper.sweep();
    expect(await value(metrics, "issue_leases_sweeps_total")).toBe(1);
    expect(await value(metrics, "issue_leases_swept_leases_total", { outcome: "expired" })).toBe(1);
    expect(await value(metrics, "issue_leases_ledger_operations_total", { op: "mark_expired", outcome: "expired" })).toBe(1);
    expect(await value(metrics, "issue_leases_outbox_effects", { state: "pending" })).toBe(1);
    // The expiry's reply and labels: let them go, so that the mocks are used.
    gh.release(1, "alice", 1);
    await h.drain();
    expect(await value(metrics, "issue_leases_outbox_effects", { state: "pending" })).toBe(0);
  });
});

describe("the metered ledger", () => {
  let dir: string;
  let inner: SqliteLedger;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "issue-leases-metrics-"));
    inner = new SqliteLedger(join(dir, "leases.db"));
  });
  afterEach(async () => {
    await inner.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("labels each operation with its outcome, `duplicate` for a redelivery and `error` when it threw", async () => {
    const m = new AppMetrics({ defaultMetrics: false });
    const ledger = meteredLedger(inner, m);
    const a = { id: 1, login: "alice" };
    const b = { id: 2, login: "bob" };
    await ledger.acquire(key(1), a, null, 1000, { delivery: "x" });
    await ledger.acquire(key(1), a, null, 1000, { delivery: "x" });
    await ledger.acquire(key(1), b, null, 1000);
    await ledger.acquire(key(2), a, null, 1000, { maxPerHolder: 1 });
    await ledger.renew(key(1), b, null, 1000);
    await ledger.release(key(1), a, 1000);
    await ledger.current(key(1), 1000);
    expect(ledger.sharedByProcesses).toBe(false);
    const broken = meteredLedger({ ...inner, current: () => Promise.reject(new Error("gone")) } as unknown as Ledger, m);
    await expect(broken.current(key(1), 1000)).rejects.toThrow("gone");

    const ops = async (op: string, outcome: string) => value(m, "issue_leases_ledger_operations_total", { op, outcome });
    expect(await ops("acquire", "acquired")).toBe(1);
    expect(await ops("acquire", "duplicate")).toBe(1);
    expect(await ops("acquire", "held")).toBe(1);
    expect(await ops("acquire", "limit")).toBe(1);
    expect(await ops("renew", "not_holder")).toBe(1);
    expect(await ops("release", "released")).toBe(1);
    expect(await ops("current", "ok")).toBe(1);
    expect(await ops("current", "error")).toBe(1);
  });

  it("passes watchEvents through as it is: its unsubscribe at once, not a promise, and the listener called after a change", async () => {
    const m = new AppMetrics({ defaultMetrics: false });
    const ledger = meteredLedger(inner, m);
    let heard = 0;
    const stop = ledger.watchEvents(() => heard++);
    expect(typeof stop).toBe("function");
    await ledger.acquire(key(1), { id: 1, login: "alice" }, null, 1000);
    expect(heard).toBe(1);
    stop();
    await ledger.release(key(1), { id: 1, login: "alice" }, 1001);
    expect(heard).toBe(1);
    await ledger.eventsAfter(0);
    expect(await value(m, "issue_leases_ledger_operations_total", { op: "events_after", outcome: "ok" })).toBe(1);
  });

  it("leaves the outbox gauges out of a scrape when the database does not answer, and the scrape still answers", async () => {
    const m = new AppMetrics({ defaultMetrics: false });
    let away = false;
    const ledger = new Proxy(inner, {
      get: (t, p, r) => (p === "outboxStats" && away ? () => Promise.reject(new Error("database away")) : Reflect.get(t, p, r)),
    });
    m.watchOutbox(ledger);
    expect(await value(m, "issue_leases_outbox_effects", { state: "pending" })).toBe(0);
    expect(await value(m, "issue_leases_outbox_oldest_pending_age_seconds")).toBe(0);
    away = true;
    const text = await m.registry.metrics();
    expect(text).toContain("# TYPE issue_leases_outbox_effects gauge");
    expect(text).not.toMatch(/^issue_leases_outbox_effects\{/m);
    expect(text).not.toMatch(/^issue_leases_outbox_oldest_pending_age_seconds /m);
  });
});

describe("the lease events' metrics", () => {
  it("count the events the stream's hub read by type, its clients now, and those dropped, growing by what the hub counted since the last scrape", async () => {
    const metrics = new AppMetrics({ defaultMetrics: false });
    const read = { "lease.acquired": 0, "lease.renewed": 0, "lease.released": 0, "lease.expired": 0, "lease.ended": 0, "lease.handed_off": 0 };
    let hub = { eventsRead: { ...read }, clients: 0, clientsDropped: 0 };
    metrics.watchEvents(() => hub);
    hub = { eventsRead: { ...read, "lease.acquired": 3, "lease.released": 1 }, clients: 2, clientsDropped: 1 };
    expect(await value(metrics, "issue_leases_events_total", { type: "lease.acquired" })).toBe(3);
    expect(await value(metrics, "issue_leases_events_total", { type: "lease.released" })).toBe(1);
    expect(await value(metrics, "issue_leases_event_stream_clients")).toBe(2);
    hub = { eventsRead: { ...read, "lease.acquired": 5, "lease.released": 1 }, clients: 0, clientsDropped: 4 };
    expect(await value(metrics, "issue_leases_events_total", { type: "lease.acquired" })).toBe(5);
    expect(await value(metrics, "issue_leases_event_stream_clients")).toBe(0);
    expect(await value(metrics, "issue_leases_event_stream_dropped_total")).toBe(4);
    // Scraped again with nothing new: the counters stay where they are.
    expect(await value(metrics, "issue_leases_events_total", { type: "lease.acquired" })).toBe(5);
  });

  it("count outgoing webhook deliveries by outcome and status", async () => {
    const metrics = new AppMetrics({ defaultMetrics: false });
    metrics.webhookDelivery("failed", 503);
    metrics.webhookDelivery("failed", 503);
    metrics.webhookDelivery("no_answer", null);
    metrics.webhookDelivery("delivered", null);
    metrics.webhookDelivery("held_back", null);
    expect(await value(metrics, "issue_leases_webhook_deliveries_total", { outcome: "failed", status: "5xx" })).toBe(2);
    expect(await value(metrics, "issue_leases_webhook_deliveries_total", { outcome: "no_answer", status: "network_error" })).toBe(1);
    expect(await value(metrics, "issue_leases_webhook_deliveries_total", { outcome: "delivered", status: "2xx" })).toBe(1);
    expect(await value(metrics, "issue_leases_webhook_deliveries_total", { outcome: "held_back", status: "not_sent" })).toBe(1);
  });
});

describe("serving /metrics", () => {
  let server: Server | undefined;
  // The app's tests above turn off the network for nock; these talk to a local server.
  beforeEach(() => nock.enableNetConnect("127.0.0.1"));
  afterEach(async () => {
    server?.close();
    server = undefined;
  });

  async function serve(token: string | null): Promise<string> {
    const handler = metricsHandler(new AppMetrics({ defaultMetrics: false }), { token });
    server = createServer((req, res) => {
      void handler(req, res).then((handled) => handled || res.writeHead(404).end());
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  }

  it("asks for the bearer token when one is set, and answers only with it", async () => {
    const url = await serve("s3cret");
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: "Basic s3cret" } })).status).toBe(401);
    const ok = await fetch(url, { headers: { authorization: "Bearer s3cret" } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toContain("text/plain");
    expect(await ok.text()).toContain("# HELP issue_leases_deliveries_total");
    expect((await fetch(url, { method: "POST" })).status).toBe(404);
  });

  it("reads its settings from the environment: off by default", () => {
    expect(metricsSettings({})).toBeNull();
    expect(metricsSettings({ METRICS: "0" })).toBeNull();
    expect(metricsSettings({ METRICS: "1" })).toEqual({ token: null });
    expect(metricsSettings({ METRICS_TOKEN: "t" })).toEqual({ token: "t" });
    expect(metricsSettings({ METRICS: "1", METRICS_TOKEN: "t" })).toEqual({ token: "t" });
    expect(bearerMatches("bearer t", "t")).toBe(true);
    expect(bearerMatches(undefined, "t")).toBe(false);
    expect(bearerMatches("Bearer ", "")).toBe(false);
  });

  it("keeps labels bounded", () => {
    expect(eventLabel("issue_comment", "created")).toBe("issue_comment.created");
    expect(eventLabel("issue_comment", "<script>")).toBe("issue_comment");
    expect(eventLabel("Robert'); DROP", "x")).toBe("other");
    expect([200, 201, 304, 404, 422, 502, null].map(statusLabel)).toEqual(["2xx", "2xx", "3xx", "404", "422", "5xx", "network_error"]);
  });

  it("counts the PostgreSQL transactions rolled back and run again, by kind", async () => {
    const m = new AppMetrics();
    expect(await value(m, "issue_leases_ledger_conflicts_total", { kind: "deadlock" })).toBeUndefined();
    m.ledgerConflict("40P01");
    m.ledgerConflict("40001");
    m.ledgerConflict("40001");
    expect(await value(m, "issue_leases_ledger_conflicts_total", { kind: "deadlock" })).toBe(1);
    expect(await value(m, "issue_leases_ledger_conflicts_total", { kind: "serialization" })).toBe(2);
  });

  it("counts a GraphQL mutation document as a write and a GraphQL query as a read", () => {
    const graphql = "https://api.github.com/graphql";
    const mutation = JSON.stringify({ query: "mutation IssueLeases($i: ID!) {\n  c0: addComment(input: {subjectId: $i, body: \"x\"}) { clientMutationId }\n}", variables: { i: "I_1" } });
    const query = JSON.stringify({ query: "query { viewer { login databaseId } }" });
    expect(methodClass("POST", graphql, mutation)).toBe("write");
    expect(methodClass("POST", graphql, query)).toBe("read");
    expect(methodClass("POST", graphql, "not json")).toBe("read");
    expect(methodClass("POST", `${graphql}?x=1`, JSON.stringify({ variables: {}, query: "\n mutation { a }" }))).toBe("write");
    expect(methodClass("POST", "https://api.github.com/repos/o/r/issues/1/comments", "{}")).toBe("write");
    expect(methodClass("GET", "https://api.github.com/repos/o/r/labels/x")).toBe("read");
  });
});
