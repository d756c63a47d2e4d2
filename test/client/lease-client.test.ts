/**
 * LeaseClient against a small HTTP server in the test: the requests it
 * makes (paths, bodies, `Authorization`, `Idempotency-Key`), the typed
 * answers and errors, and retries of transient failures with one key.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  LeaseApiError,
  LeaseClient,
  LeaseHeldError,
  LeaseNotHolderError,
  LeaseRefusedError,
  LeaseUnavailableError,
} from "@issue-leases/client";
import { type ApiStub, LEASE_PATH, leaseJson, scriptedFetch, type StubHandler, startApiStub } from "./api-stub.js";

const EXPIRES = "2026-12-08T12:00:00Z";
const bot = { login: "deploy-bot[bot]", id: 41898282, instance: "worker-3" };
const alice = { login: "alice", id: 11 };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** Retries without waiting long: these tests are about which attempts are made, not when. */
const FAST = { minDelayMs: 1, maxDelayMs: 5 };

let stub: ApiStub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
  vi.useRealTimers();
});

async function clientFor(handler: StubHandler, options: Partial<ConstructorParameters<typeof LeaseClient>[0]> = {}) {
  stub = await startApiStub(handler);
  const client = new LeaseClient({ baseUrl: stub.url, token: "ghs_secret", retry: FAST, ...options });
  return { client, requests: stub.requests };
}

describe("LeaseClient's requests and answers", () => {
  it("claims with POST, the TTL and instance as JSON, a bearer token and an idempotency key", async () => {
    const { client, requests } = await clientFor(() => ({ status: 200, json: leaseJson("acquired", bot, 3, EXPIRES) }));
    const lease = await client.claim("octo-org/widgets#12", { ttl: "30m", instance: "worker-3" });
    expect(lease).toEqual(leaseJson("acquired", bot, 3, EXPIRES));
    expect(requests).toHaveLength(1);
    const [req] = requests;
    expect(req).toMatchObject({ method: "POST", path: LEASE_PATH, body: { ttl: "30m", instance: "worker-3" } });
    expect(req!.headers.authorization).toBe("Bearer ghs_secret");
    expect(req!.headers["content-type"]).toBe("application/json");
    expect(req!.headers["idempotency-key"]).toMatch(UUID);
  });

  it("renews with PATCH, releases with DELETE and ?instance=, each write with a key of its own", async () => {
    const { client, requests } = await clientFor((req) =>
      req.method === "PATCH"
        ? { status: 200, json: leaseJson("renewed", bot, 3, EXPIRES) }
        : { status: 200, json: leaseJson("released", bot, 3, EXPIRES) },
    );
    const ref = { owner: "octo-org", repo: "widgets", issue: 12 };
    expect((await client.renew(ref, { ttl: 90_500, instance: "worker-3" })).outcome).toBe("renewed");
    expect((await client.release(ref, { instance: "worker-3" })).outcome).toBe("released");
    expect((await client.release(ref)).outcome).toBe("released");
    expect(requests.map((r) => [r.method, r.path, r.query.get("instance"), r.body])).toEqual([
      // Milliseconds go as whole seconds, rounded up.
      ["PATCH", LEASE_PATH, null, { ttl: "91s", instance: "worker-3" }],
      ["DELETE", LEASE_PATH, "worker-3", undefined],
      ["DELETE", LEASE_PATH, null, undefined],
    ]);
    const keys = requests.map((r) => r.headers["idempotency-key"]);
    expect(new Set(keys).size).toBe(3);
  });

  it("reads the status with GET and the caller's leases from /api/v1/leases?holder=@me, without idempotency keys", async () => {
    const status = { ...leaseJson("status", alice, 2, EXPIRES), tenures: [{ holder: { ...alice, instance: null }, token: 2 }] };
    const { client, requests } = await clientFor((req) =>
      req.path === LEASE_PATH ? { status: 200, json: status } : { status: 200, json: { leases: [leaseJson("status", bot, 3, EXPIRES)] } },
    );
    expect(await client.status("octo-org/widgets#12")).toEqual(status);
    expect(await client.mine()).toEqual([leaseJson("status", bot, 3, EXPIRES)]);
    expect(requests.map((r) => [r.method, r.path, r.query.toString()])).toEqual([
      ["GET", LEASE_PATH, ""],
      ["GET", "/api/v1/leases", "holder=%40me"],
    ]);
    expect(requests.every((r) => r.headers["idempotency-key"] === undefined)).toBe(true);
  });

  it("mine reads the board's listing page after page, as GET /api/v1/leases answers it", async () => {
    const listed = (issue: number) => ({
      repo: "octo-org/widgets",
      issue,
      title: `Issue ${issue}`,
      labels: ["claimed"],
      url: `https://github.com/octo-org/widgets/issues/${issue}`,
      holder: { login: bot.login, id: bot.id },
      token: 1,
      acquired_at: "2026-12-01T12:00:00.000Z",
      expires_at: EXPIRES,
      held_by: "api",
    });
    const { client, requests } = await clientFor((req) => {
      const page = Number(req.query.get("page") ?? 1);
      return {
        status: 200,
        json: {
          leases: page === 1 ? [listed(1), listed(2)] : [listed(3)],
          page,
          per_page: 2,
          next: page === 1 ? "/api/v1/leases?holder=%40me&page=2" : null,
          viewer: { login: bot.login, id: bot.id },
        },
      };
    });
    expect((await client.mine()).map((l) => l.issue)).toEqual([1, 2, 3]);
    expect(requests.map((r) => r.query.toString())).toEqual(["holder=%40me", "holder=%40me&page=2"]);
  });

  it("verify answers valid, or not valid with the live lease, and is not an error either way", async () => {
    const { client, requests } = await clientFor((req) =>
      (req.body as { token: number }).token === 3
        ? { status: 200, json: { valid: true } }
        : { status: 409, json: { valid: false, lease: leaseJson("status", bot, 3, EXPIRES) } },
    );
    expect(await client.verify("octo-org/widgets#12", 3)).toEqual({ valid: true });
    expect(await client.verify("octo-org/widgets#12", 2, { instance: "worker-3" })).toEqual({
      valid: false,
      lease: leaseJson("status", bot, 3, EXPIRES),
    });
    expect(requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ["POST", `${LEASE_PATH}/verify`, { token: 3 }],
      ["POST", `${LEASE_PATH}/verify`, { token: 2, instance: "worker-3" }],
    ]);
    await expect(client.verify("octo-org/widgets#12", 0)).rejects.toThrow(TypeError);
    expect(requests).toHaveLength(2);
  });

  it("serves below a path of the base URL, and percent-encodes the repository", async () => {
    stub = await startApiStub(() => ({ status: 200, json: leaseJson("status", null, null, null) }));
    const client = new LeaseClient({ baseUrl: `${stub.url}/leases?ignored=1`, token: "t" });
    await client.status({ owner: "octo-org", repo: "widgets.js", issue: 7 });
    expect(stub.requests[0]!.path).toBe("/leases/api/v1/repos/octo-org/widgets.js/issues/7/lease");
  });

  it("asks a token function for the token on every attempt", async () => {
    let n = 0;
    const { client, requests } = await clientFor((_req, i) => (i === 0 ? { status: 503 } : { status: 200, json: leaseJson("acquired", bot, 1, EXPIRES) }), {
      token: async () => `token-${++n}`,
    });
    await client.claim("octo-org/widgets#12");
    expect(requests.map((r) => r.headers.authorization)).toEqual(["Bearer token-1", "Bearer token-2"]);
  });

  it("refuses a malformed issue before making any request", async () => {
    const { client, requests } = await clientFor(() => ({ status: 200, json: {} }));
    for (const ref of ["octo-org/widgets", "octo-org/widgets#0", "widgets#3", "-x/y#1", "a/b#1#2"]) {
      await expect(client.claim(ref), ref).rejects.toThrow(/not an issue.*owner\/repo#12/);
    }
    await expect(client.claim({ owner: "octo-org", repo: "..", issue: 1 })).rejects.toThrow(TypeError);
    await expect(client.claim({ owner: "octo-org", repo: "w", issue: 1.5 })).rejects.toThrow(TypeError);
    expect(requests).toEqual([]);
  });
});

describe("LeaseClient's typed errors", () => {
  it("a held issue is a LeaseHeldError naming the holder, token and expiry, and is not retried", async () => {
    const { client, requests } = await clientFor(() => ({ status: 409, json: leaseJson("held", bot, 3, EXPIRES) }));
    const error = await client.claim("octo-org/widgets#12").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseHeldError);
    expect(error).toBeInstanceOf(LeaseApiError);
    expect(error).toMatchObject({ status: 409, code: "held", holder: bot, token: 3, expiresAt: EXPIRES });
    expect((error as Error).message).toBe(`octo-org/widgets#12 is held by deploy-bot[bot] (instance worker-3) with token 3, until ${EXPIRES}`);
    expect(requests).toHaveLength(1);
  });

  it("renewing what someone else holds, or what is free, is a LeaseNotHolderError", async () => {
    const { client } = await clientFor((_req, i) => ({
      status: 409,
      json: i === 0 ? leaseJson("not_holder", alice, 4, EXPIRES) : leaseJson("not_holder", null, null, null),
    }));
    const taken = await client.renew("octo-org/widgets#12").catch((e: unknown) => e);
    expect(taken).toBeInstanceOf(LeaseNotHolderError);
    expect(taken).toMatchObject({ holder: { login: "alice", id: 11, instance: null }, token: 4, expiresAt: EXPIRES });
    const free = await client.renew("octo-org/widgets#12").catch((e: unknown) => e);
    expect(free).toBeInstanceOf(LeaseNotHolderError);
    expect(free).toMatchObject({ holder: null, token: null });
    expect((free as Error).message).toContain("it is free");
  });

  it("a refusal by config is a LeaseRefusedError with its reason; 401 and 422 keep the API's code and message", async () => {
    const answers: Array<{ status: number; json: unknown }> = [
      { status: 403, json: { error: { code: "forbidden", message: "bots may not claim here", reason: "bots" } } },
      { status: 401, json: { error: { code: "unauthorized", message: "a GitHub token is required" } } },
      { status: 422, json: { error: { code: "invalid", message: "ttl: 7 is not a duration" } } },
      { status: 404, json: { error: { code: "not_found", message: "Not Found" } } },
    ];
    const { client, requests } = await clientFor((_req, i) => answers[i]!);
    const refused = await client.claim("octo-org/widgets#12").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LeaseRefusedError);
    expect(refused).toMatchObject({ status: 403, code: "forbidden", reason: "bots", message: "bots may not claim here" });
    for (const [status, code, message] of [
      [401, "unauthorized", "a GitHub token is required"],
      [422, "invalid", "ttl: 7 is not a duration"],
      [404, "not_found", "Not Found"],
    ] as const) {
      const error = await client.claim("octo-org/widgets#12").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LeaseApiError);
      expect(error).toMatchObject({ status, code, message });
    }
    // None of them is transient: one request each.
    expect(requests).toHaveLength(4);
  });

  it("an answer that is not the API's says so", async () => {
    const { client } = await clientFor(() => ({ status: 200, json: { hello: "world" } }));
    await expect(client.status("octo-org/widgets#12")).rejects.toThrow(/unexpected answer from the lease API \(HTTP 200\)/);
  });

  it("a redirect is not followed (a POST must not become a GET) and names where it points", async () => {
    const { client, requests } = await clientFor(() => ({ status: 301, headers: { location: "https://leases.example.com/" } }));
    const error = await client.claim("octo-org/widgets#12").catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 301, code: "redirect" });
    expect((error as Error).message).toContain("https://leases.example.com/");
    expect(requests).toHaveLength(1);
  });
});

describe("LeaseClient's retries", () => {
  it("retries 5xx and a dropped connection with the same idempotency key, so a retried claim is one claim", async () => {
    const { client, requests } = await clientFor((_req, i) =>
      i === 0 ? { status: 502 } : i === 1 ? { status: 0, destroy: true } : { status: 200, json: leaseJson("acquired", bot, 3, EXPIRES) },
    );
    expect((await client.claim("octo-org/widgets#12", { ttl: "1h" })).token).toBe(3);
    expect(requests).toHaveLength(3);
    const keys = requests.map((r) => r.headers["idempotency-key"]);
    expect(keys[0]).toMatch(UUID);
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
    expect(requests.every((r) => JSON.stringify(r.body) === JSON.stringify({ ttl: "1h" }))).toBe(true);
  });

  it("keeps a key given by the caller", async () => {
    const { client, requests } = await clientFor((_req, i) => (i === 0 ? { status: 500 } : { status: 200, json: leaseJson("released", bot, 3, EXPIRES) }));
    await client.release("octo-org/widgets#12", { idempotencyKey: "job-77-release" });
    expect(requests.map((r) => r.headers["idempotency-key"])).toEqual(["job-77-release", "job-77-release"]);
  });

  it("abandons an attempt that does not answer in time and retries it", async () => {
    const { client, requests } = await clientFor((_req, i) => (i === 0 ? { status: 0, hang: true } : { status: 200, json: leaseJson("acquired", bot, 3, EXPIRES) }), {
      retry: { ...FAST, timeoutMs: 500 },
    });
    expect((await client.claim("octo-org/widgets#12")).outcome).toBe("acquired");
    // Two attempts (more only if a loaded machine made the answer itself late): one key.
    expect(requests.length).toBeGreaterThanOrEqual(2);
    expect(new Set(requests.map((r) => r.headers["idempotency-key"])).size).toBe(1);
  });

  it("gives up after its retries with a LeaseUnavailableError carrying the last failure", async () => {
    const { client, requests } = await clientFor(() => ({ status: 503, json: { error: { code: "unavailable", message: "database down" } } }), {
      retry: { ...FAST, retries: 2 },
    });
    const error = await client.claim("octo-org/widgets#12").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseUnavailableError);
    expect(error).toMatchObject({ attempts: 3 });
    expect((error as Error).message).toMatch(/HTTP 503: database down \(after 3 attempts\)/);
    expect(requests).toHaveLength(3);
  });

  it("a server that cannot be reached is a LeaseUnavailableError naming the network error", async () => {
    stub = await startApiStub(() => ({ status: 200 }));
    const url = stub.url;
    await stub.close();
    stub = undefined;
    const client = new LeaseClient({ baseUrl: url, token: "t", retry: { ...FAST, retries: 1 } });
    const error = await client.claim("octo-org/widgets#12").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseUnavailableError);
    expect((error as Error).message).toMatch(/ECONNREFUSED.*after 2 attempts/);
  });

  it("waits out a 429's Retry-After before retrying, and not longer than it allows", async () => {
    vi.useFakeTimers();
    const { fetch, requests } = scriptedFetch((_req, i) =>
      i === 0 ? { status: 429, headers: { "retry-after": "3" }, json: { error: { code: "rate_limited", message: "slow down" } } } : { status: 200, json: leaseJson("acquired", bot, 3, EXPIRES) },
    );
    const client = new LeaseClient({ baseUrl: "https://leases.test", token: "t", fetch, retry: { minDelayMs: 1 } });
    const claim = client.claim("octo-org/widgets#12");
    await vi.advanceTimersByTimeAsync(2_999);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect((await claim).token).toBe(3);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.headers["idempotency-key"]).toBe(requests[0]!.headers["idempotency-key"]);
  });

  it("does not wait for a Retry-After past maxRetryAfterMs: the call fails at once", async () => {
    const { client, requests } = await clientFor(() => ({ status: 429, headers: { "retry-after": "3600" } }), {
      retry: { ...FAST, maxRetryAfterMs: 60_000 },
    });
    await expect(client.claim("octo-org/widgets#12")).rejects.toThrow(/HTTP 429.*asked to wait 3600 s/);
    expect(requests).toHaveLength(1);
  });

  it("stops retrying when the caller aborts, with the caller's reason", async () => {
    const { client, requests } = await clientFor(() => ({ status: 503 }), { retry: { minDelayMs: 60_000, maxDelayMs: 60_000 } });
    const controller = new AbortController();
    const claim = client.claim("octo-org/widgets#12", { signal: controller.signal });
    await vi.waitFor(() => expect(requests).toHaveLength(1));
    controller.abort(new Error("shutting down"));
    await expect(claim).rejects.toThrow("shutting down");
    expect(requests).toHaveLength(1);
  });
});
