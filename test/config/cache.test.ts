import { describe, expect, it, vi } from "vitest";
import { ConfigCache } from "../../src/config/cache.js";
import { DEFAULT_CONFIG } from "../../src/config/config.js";

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("ConfigCache.get", () => {
  it("parses what load returns, null meaning the defaults", async () => {
    const cache = new ConfigCache();
    expect(await cache.get(1, async () => null)).toEqual({ ok: true, config: DEFAULT_CONFIG });
    const result = await cache.get(2, async () => ({ bots: false }));
    expect(result.ok && result.config.bots).toBe(false);
  });

  it("caches parse errors like any other result", async () => {
    const cache = new ConfigCache();
    const load = vi.fn(async () => ({ default_ttl: "soon" }));
    const first = await cache.get(1, load);
    expect(first.ok).toBe(false);
    expect(await cache.get(1, load)).toBe(first);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("loads once for repeated gets, per repository", async () => {
    const cache = new ConfigCache();
    const load = vi.fn(async () => null);
    const first = await cache.get(1, load);
    expect(await cache.get(1, load)).toBe(first);
    expect(await cache.get(1, load)).toBe(first);
    expect(load).toHaveBeenCalledTimes(1);
    await cache.get(2, load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("shares one in-flight load between concurrent gets", async () => {
    const cache = new ConfigCache();
    const pending = deferred<unknown>();
    const load = vi.fn(() => pending.promise);
    const gets = [cache.get(1, load), cache.get(1, load), cache.get(1, load)];
    pending.resolve({ assign: false });
    const results = await Promise.all(gets);
    expect(load).toHaveBeenCalledTimes(1);
    expect(results[1]).toBe(results[0]);
    expect(results[2]).toBe(results[0]);
    expect(results[0]?.ok && results[0].config.assign).toBe(false);
  });

  it("loads again once the entry is older than ttlMs", async () => {
    const time = clock();
    const cache = new ConfigCache({ ttlMs: 1000, now: time.now });
    const load = vi.fn(async () => null);
    await cache.get(1, load);
    time.advance(999);
    await cache.get(1, load);
    expect(load).toHaveBeenCalledTimes(1);
    time.advance(1);
    await cache.get(1, load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("defaults to a ten-minute ttl", async () => {
    const time = clock();
    const cache = new ConfigCache({ now: time.now });
    const load = vi.fn(async () => null);
    await cache.get(1, load);
    time.advance(10 * 60_000 - 1);
    await cache.get(1, load);
    expect(load).toHaveBeenCalledTimes(1);
    time.advance(1);
    await cache.get(1, load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("loads again after invalidate", async () => {
    const cache = new ConfigCache();
    const load = vi.fn(async () => null);
    await cache.get(1, load);
    cache.invalidate(1);
    await cache.get(1, load);
    expect(load).toHaveBeenCalledTimes(2);
    cache.invalidate(99); // unknown repositories are fine
  });

  it("does not cache a load that was in flight when invalidated", async () => {
    const cache = new ConfigCache();
    const old = deferred<unknown>();
    const stale = cache.get(1, () => old.promise);
    cache.invalidate(1);
    const fresh = cache.get(1, async () => ({ bots: false }));
    old.resolve({ bots: true });
    const staleResult = await stale;
    expect(staleResult.ok && staleResult.config.bots).toBe(true);
    const freshResult = await fresh;
    expect(freshResult.ok && freshResult.config.bots).toBe(false);
    const load = vi.fn(async () => null);
    expect(await cache.get(1, load)).toBe(freshResult);
    expect(load).not.toHaveBeenCalled();
  });

  it("does not cache a load that throws, and rethrows to every waiting caller", async () => {
    const cache = new ConfigCache();
    const failing = vi.fn(async () => {
      throw new Error("GitHub is down");
    });
    const gets = [cache.get(1, failing), cache.get(1, failing)];
    for (const get of gets) await expect(get).rejects.toThrow("GitHub is down");
    expect(failing).toHaveBeenCalledTimes(1);

    const load = vi.fn(async () => null);
    expect((await cache.get(1, load)).ok).toBe(true);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("turns a load that throws synchronously into a rejection", async () => {
    const cache = new ConfigCache();
    const load = (): Promise<unknown> => {
      throw new Error("sync");
    };
    await expect(cache.get(1, load)).rejects.toThrow("sync");
    expect((await cache.get(1, async () => null)).ok).toBe(true);
  });

  it("evicts the least recently used repository beyond maxEntries", async () => {
    const cache = new ConfigCache({ maxEntries: 2 });
    const load = vi.fn(async () => null);
    await cache.get(1, load);
    await cache.get(2, load);
    await cache.get(1, load); // 1 is now more recent than 2
    await cache.get(3, load); // evicts 2
    expect(load).toHaveBeenCalledTimes(3);
    await cache.get(1, load);
    await cache.get(3, load);
    expect(load).toHaveBeenCalledTimes(3);
    await cache.get(2, load);
    expect(load).toHaveBeenCalledTimes(4);
  });
});

describe("ConfigCache.pushTouchesConfig", () => {
  const repository = { name: "app", default_branch: "main" };
  const push = (commits?: Array<{ added?: string[]; modified?: string[]; removed?: string[] }>, ref = "refs/heads/main") => ({
    ref,
    repository,
    ...(commits === undefined ? {} : { commits }),
  });

  it("is true when a commit on the default branch adds, modifies or removes the file", () => {
    for (const kind of ["added", "modified", "removed"]) {
      expect(ConfigCache.pushTouchesConfig(push([{}, { [kind]: ["README.md", ".github/issue-leases.yml"] }]))).toBe(true);
    }
  });

  it("is false when the commits touch other files", () => {
    expect(ConfigCache.pushTouchesConfig(push([{ added: ["a"], modified: [".github/issue-leases.yaml"], removed: [] }]))).toBe(false);
    expect(ConfigCache.pushTouchesConfig(push([]))).toBe(false);
  });

  it("is false for other branches and tags", () => {
    const touch = [{ modified: [".github/issue-leases.yml"] }];
    expect(ConfigCache.pushTouchesConfig(push(touch, "refs/heads/feature"))).toBe(false);
    expect(ConfigCache.pushTouchesConfig(push(touch, "refs/tags/main"))).toBe(false);
    expect(ConfigCache.pushTouchesConfig(push(touch, "refs/heads/main-old"))).toBe(false);
  });

  it("is true when the commits are missing or may be truncated", () => {
    expect(ConfigCache.pushTouchesConfig(push())).toBe(true);
    expect(ConfigCache.pushTouchesConfig(push(Array.from({ length: 20 }, () => ({ modified: ["a"] }))))).toBe(false);
    expect(ConfigCache.pushTouchesConfig(push(Array.from({ length: 21 }, () => ({ modified: ["a"] }))))).toBe(true);
  });

  it("is true for any push to the default branch of an org-wide .github repository", () => {
    const org = { name: ".github", default_branch: "main" };
    expect(ConfigCache.pushTouchesConfig({ ref: "refs/heads/main", repository: org, commits: [{ modified: ["README.md"] }] })).toBe(true);
    expect(ConfigCache.pushTouchesConfig({ ref: "refs/heads/other", repository: org, commits: [] })).toBe(false);
  });
});
