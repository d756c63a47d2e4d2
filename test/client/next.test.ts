/**
 * `LeaseClient.next` against a small HTTP server in the test (the path of a
 * repository and of an owner, the filters on the wire in snake_case, the
 * 404 `nothing_ready` as a typed error, one idempotency key through the
 * retries), and `withNextLease` with a scripted API and fake timers: it
 * holds the issue `next` took exactly as `withLease` holds a claimed one.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { LeaseApiError, LeaseClient, LeaseLostError, NothingReadyError } from "@issue-leases/client";
import {
  type ApiStub,
  EVENTS_PATH,
  leaseJson,
  NO_STREAM,
  notEvents,
  scriptedFetch,
  type StubHandler,
  type StubRequest,
  startApiStub,
} from "./api-stub.js";

const EXPIRES = "2026-12-08T12:00:00Z";
const bot = { login: "deploy-bot[bot]", id: 41898282, instance: "worker-3" };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const NEXT_PATH = "/api/v1/repos/octo-org/widgets/leases/next";
const SECOND = 1000;

/** The API's answer for issue `issue` (the stub's leaseJson is #12's). */
function leaseOn(issue: number, outcome: string, token: number, expiresAt: string | null) {
  return { ...leaseJson(outcome, bot, token, expiresAt), issue };
}

const NOTHING_READY = {
  status: 404,
  json: { error: { code: "nothing_ready", message: "no open issue matching the filters is free" }, matched: 7, held: 7 },
};

let stub: ApiStub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
  vi.useRealTimers();
});

async function clientFor(handler: StubHandler) {
  stub = await startApiStub(handler);
  const client = new LeaseClient({ baseUrl: stub.url, token: "ghs_secret", retry: { minDelayMs: 1, maxDelayMs: 5 } });
  return { client, requests: stub.requests };
}

describe("LeaseClient.next", () => {
  it("POSTs the filters in snake_case with the TTL, the instance and an idempotency key, and answers the lease it took", async () => {
    const { client, requests } = await clientFor(() => ({ status: 200, json: leaseOn(31, "acquired", 1, EXPIRES) }));
    const lease = await client.next(
      "octo-org/widgets",
      {
        labels: ["bug", "agent-ok"],
        anyLabels: ["p1", "p2"],
        excludeLabels: ["wontfix"],
        milestone: "v2",
        order: ["priority: high", "priority: low"],
        assignee: "none",
        includeWithPulls: true,
        includeBlocked: false,
      },
      { ttl: "2h", instance: "w-3" },
    );
    expect(lease).toEqual(leaseOn(31, "acquired", 1, EXPIRES));
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: "POST", path: NEXT_PATH });
    expect(requests[0]!.body).toEqual({
      labels: ["bug", "agent-ok"],
      any_labels: ["p1", "p2"],
      exclude_labels: ["wontfix"],
      milestone: "v2",
      order: ["priority: high", "priority: low"],
      assignee: "none",
      include_with_pulls: true,
      include_blocked: false,
      ttl: "2h",
      instance: "w-3",
    });
    expect(requests[0]!.headers.authorization).toBe("Bearer ghs_secret");
    expect(requests[0]!.headers["idempotency-key"]).toMatch(UUID);
  });

  it("sends an empty body without filters, and takes an owner's every repository with { org }", async () => {
    const { client, requests } = await clientFor(() => ({ status: 200, json: leaseOn(4, "acquired", 2, null) }));
    await client.next({ owner: "octo-org", repo: "widgets" });
    await client.next({ org: "octo-org" }, { labels: ["bug"] }, { ttl: 90 * SECOND });
    expect(requests.map((r) => [r.path, r.body])).toEqual([
      [NEXT_PATH, {}],
      ["/api/v1/orgs/octo-org/leases/next", { labels: ["bug"], ttl: "90s" }],
    ]);
  });

  it("answers nothing_ready with a NothingReadyError carrying matched and held, not retried", async () => {
    const { client, requests } = await clientFor(() => NOTHING_READY);
    const error = await client.next("octo-org/widgets", { labels: ["bug"] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NothingReadyError);
    expect(error).toBeInstanceOf(LeaseApiError);
    expect(error).toMatchObject({ status: 404, code: "nothing_ready", matched: 7, held: 7, message: "no open issue matching the filters is free" });
    expect(requests).toHaveLength(1);
  });

  it("keeps another 404 (a repository the token cannot see) a plain LeaseApiError", async () => {
    const { client } = await clientFor(() => ({ status: 404, json: { error: { code: "not_found", message: "Not Found" } } }));
    const error = await client.next("octo-org/widgets").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseApiError);
    expect(error).not.toBeInstanceOf(NothingReadyError);
    expect(error).toMatchObject({ status: 404, code: "not_found" });
  });

  it("retries a dropped connection with the same idempotency key, so that the server answers the same issue", async () => {
    const { client, requests } = await clientFor((_req, i) => (i === 0 ? { status: 0, destroy: true } : { status: 200, json: leaseOn(31, "acquired", 1, EXPIRES) }));
    expect((await client.next("octo-org/widgets", { labels: ["bug"] })).issue).toBe(31);
    expect(requests).toHaveLength(2);
    const keys = requests.map((r) => r.headers["idempotency-key"]);
    expect(keys[0]).toMatch(UUID);
    expect(keys[1]).toBe(keys[0]);
    expect(requests[1]!.body).toEqual(requests[0]!.body);
    // A new call is a new request: a key of its own.
    await client.next("octo-org/widgets", {}, { idempotencyKey: "job-9-next" });
    expect(requests[2]!.headers["idempotency-key"]).toBe("job-9-next");
  });

  it("refuses a bad scope or filter before any request", async () => {
    const { client, requests } = await clientFor(() => ({ status: 500 }));
    await expect(client.next("octo-org")).rejects.toThrow(/not a repository: "octo-org"/);
    await expect(client.next("octo-org/widgets#12")).rejects.toThrow(TypeError);
    await expect(client.next({ org: "-bad" })).rejects.toThrow(/not an owner/);
    // What a JavaScript caller may write: the wire's name, or one label as a string.
    await expect(client.next("octo-org/widgets", { any_labels: ["bug"] } as never)).rejects.toThrow(/unknown filter "any_labels": expected labels, anyLabels/);
    await expect(client.next("octo-org/widgets", { labels: "bug" } as never)).rejects.toThrow(/labels must be an array/);
    await expect(client.next("octo-org/widgets", { assignee: "me" } as never)).rejects.toThrow(/assignee must be "none" or "none_or_me"/);
    expect(requests).toEqual([]);
  });
});

describe("withNextLease", () => {
  /** A scripted API whose `next` takes #31 for the TTL asked; renewals extend it unless `renewal` answers. */
  function api(next: () => { status: number; json?: unknown } | null, renewal?: (n: number) => { status: number; json?: unknown } | null) {
    let renewals = 0;
    const until = (req: StubRequest) => new Date(Date.now() + Number(/^(\d+)s$/.exec((req.body as { ttl: string }).ttl)![1]) * SECOND).toISOString();
    // An app without the event stream (as in with-lease.test.ts): the renewals alone.
    const { fetch, requests } = scriptedFetch((req) => {
      if (req.path === EVENTS_PATH) return NO_STREAM;
      if (req.method === "POST" && req.path === NEXT_PATH) return next() ?? { status: 200, json: leaseOn(31, "acquired", 1, until(req)) };
      if (req.method === "PATCH" && req.path.endsWith("/issues/31/lease")) {
        return renewal?.(renewals++) ?? { status: 200, json: leaseOn(31, "renewed", 1, until(req)) };
      }
      if (req.method === "DELETE" && req.path.endsWith("/issues/31/lease")) return { status: 200, json: leaseOn(31, "released", 1, null) };
      throw new Error(`unexpected ${req.method} ${req.path}`);
    }, notEvents);
    const client = new LeaseClient({ baseUrl: "https://leases.test", token: "t", fetch, retry: { minDelayMs: 10, maxDelayMs: 10, retries: 1 } });
    return { client, requests };
  }

  it("takes the next issue, renews it every third of the TTL while the function runs, and releases it after", async () => {
    vi.useFakeTimers({ now: Date.parse("2026-12-02T12:00:00Z") });
    const { client, requests } = api(() => null);
    let finish!: (v: string) => void;
    let issue = 0;
    const done = client.withNextLease("octo-org/widgets", { labels: ["bug"] }, { ttl: "30s", instance: "w-3" }, (lease) => {
      issue = lease.issue;
      return new Promise<string>((resolve) => (finish = resolve));
    });
    await vi.advanceTimersByTimeAsync(21 * SECOND);
    expect(issue).toBe(31);
    finish("fixed");
    expect(await done).toBe("fixed");
    expect(requests.map((r) => [r.method, r.path.replace(/^\/api\/v1\/repos\/octo-org\/widgets/, "")])).toEqual([
      ["POST", "/leases/next"],
      ["PATCH", "/issues/31/lease"],
      ["PATCH", "/issues/31/lease"],
      ["DELETE", "/issues/31/lease"],
    ]);
    expect(requests[0]!.body).toEqual({ labels: ["bug"], ttl: "30s", instance: "w-3" });
    expect(requests.slice(1, 3).map((r) => r.at - requests[0]!.at)).toEqual([10 * SECOND, 20 * SECOND]);
    expect(requests[3]!.query.get("instance")).toBe("w-3");
  });

  it("aborts the function's signal when a renewal is refused, and makes no release", async () => {
    vi.useFakeTimers({ now: Date.parse("2026-12-02T12:00:00Z") });
    const { client, requests } = api(
      () => null,
      () => ({ status: 409, json: { ...leaseJson("not_holder", null, null, null), issue: 31 } }),
    );
    let signal: AbortSignal | undefined;
    const done = client
      .withNextLease("octo-org/widgets", {}, { ttl: "30s" }, (_lease, s) => {
        signal = s;
        return new Promise((_resolve, reject) => s.addEventListener("abort", () => reject(s.reason), { once: true }));
      })
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10 * SECOND + 1);
    const error = await done;
    expect(signal!.aborted).toBe(true);
    expect(error).toBeInstanceOf(LeaseLostError);
    expect(error).toMatchObject({ reason: "not_holder", ref: "octo-org/widgets#31", token: 1 });
    expect(requests.map((r) => r.method)).toEqual(["POST", "PATCH"]);
  });

  it("rejects with NothingReadyError before the function runs when no issue is free", async () => {
    const { client, requests } = api(() => NOTHING_READY);
    const fn = vi.fn();
    const error = await client.withNextLease("octo-org/widgets", { labels: ["bug"] }, { ttl: "30s" }, fn).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NothingReadyError);
    expect(error).toMatchObject({ matched: 7, held: 7 });
    expect(fn).not.toHaveBeenCalled();
    expect(requests).toHaveLength(1);
  });
});
