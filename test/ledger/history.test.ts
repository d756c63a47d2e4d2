/**
 * An issue's history: every operation on it, oldest first, whatever else
 * happens in between on other issues, including on an issue never held (no
 * lease) and through its first tenure. (SQLite walks it back from the issue's
 * latest row rather than through an index.)
 */
import { describe, expect, it } from "vitest";
import type { Holder, IssueKey } from "../../src/ledger/leases/lease-types.js";
import { backends, useBackend } from "./backends.js";
import { always } from "../../src/ledger/leases/effect-cases.js";

const HOUR = 3_600_000;
const T0 = 1_700_000_000_000;
const repoA = { repoId: 400, repo: "octo/history" };
const repoB = { repoId: 401, repo: "octo/other" };
const key = (issue: number, r = repoA): IssueKey => ({ ...r, issue });
const alice: Holder = { id: 1, login: "alice" };
const bob: Holder = { id: 2, login: "bob" };

describe.each(backends)("history: $name", (backend) => {
  const { ledger } = useBackend(backend);

  const ops = async (k: IssueKey, limit?: number) => (await ledger.history(k, limit)).map((h) => `${h.op}:${h.outcome}`);

  it("keeps each issue's operations apart and in order, before, through and after its first tenure", async () => {
    let now = T0;
    // Interleaved: issue 1 is noted and refused before anyone holds it; issue 1 of
    // another repository and issue 2 are worked on in between.
    await ledger.note(key(1), bob, now++, { outcome: "invalid" });
    await ledger.acquire(key(2), alice, HOUR, now++);
    await ledger.renew(key(1), bob, HOUR, now++);
    await ledger.acquire(key(1, repoB), bob, HOUR, now++);
    await ledger.release(key(1), alice, now++);
    expect(await ops(key(1))).toEqual(["note:invalid", "renew:not_holder", "release:released"]);
    expect(await ops(key(3))).toEqual([]);

    await ledger.acquire(key(1), alice, HOUR, now++, { delivery: "first" });
    await ledger.acquire(key(1), bob, HOUR, now++);
    await ledger.release(key(2), alice, now++);
    await ledger.renew(key(1), alice, HOUR, now++);
    await ledger.note(key(1), bob, now++, { outcome: "refused" });
    await ledger.acquire(key(1), alice, HOUR, now++, { delivery: "first" }); // a redelivery: no row
    await ledger.release(key(1), alice, now++);
    await ledger.markExpired(key(1), 1, now++);
    await ledger.acquire(key(1), bob, HOUR, now++);

    const all = await ledger.history(key(1));
    expect(all.map((h) => `${h.op}:${h.outcome}`)).toEqual([
      "note:invalid",
      "renew:not_holder",
      "release:released",
      "acquire:acquired",
      "acquire:held",
      "renew:renewed",
      "note:refused",
      "release:released",
      "expire:stale",
      "acquire:acquired",
    ]);
    const ids = all.map((h) => h.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(all.map((h) => h.at)).toEqual([...all.map((h) => h.at)].sort((a, b) => a - b));
    expect(all.every((h) => h.repoId === repoA.repoId && h.issue === 1)).toBe(true);
    expect(all.at(-1)).toMatchObject({ holder: bob, token: 2 });

    // A limit gives the latest entries, still oldest first.
    expect(await ledger.history(key(1), 1)).toEqual(all.slice(-1));
    expect(await ledger.history(key(1), 3)).toEqual(all.slice(-3));
    expect(await ledger.history(key(1), all.length + 5)).toEqual(all);

    expect(await ops(key(2))).toEqual(["acquire:acquired", "release:released"]);
    expect(await ops(key(1, repoB))).toEqual(["acquire:acquired"]);
  });

  it("an operation that fails leaves no row and does not break the issue's history", async () => {
    await ledger.note(key(1), bob, T0, { outcome: "invalid" });
    await expect(
      ledger.acquire(key(1), alice, HOUR, T0 + 1, {
        // An effect that cannot be written (its payload is no JSON) fails the transaction.
        effects: always({ installation: 1, kind: "k", payload: { n: 1n } }),
      }),
    ).rejects.toThrow(/BigInt/);
    await ledger.acquire(key(1), alice, HOUR, T0 + 2);
    await expect(
      ledger.renew(key(1), alice, HOUR, T0 + 3, {
        // An effect that cannot be written (its payload is no JSON) fails the transaction.
        effects: always({ installation: 1, kind: "k", payload: { n: 1n } }),
      }),
    ).rejects.toThrow(/BigInt/);
    await ledger.release(key(1), alice, T0 + 4);
    expect(await ops(key(1))).toEqual(["note:invalid", "acquire:acquired", "release:released"]);
  });
});
