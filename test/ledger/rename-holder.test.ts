/**
 * Ledger contract, both backends: renameHolder moves a holder's live leases
 * (every repository) to their new login with one effect each, and does
 * nothing for a login that did not change or for leases no longer live.
 */
import { describe, expect, it } from "vitest";
import type { Holder, IssueKey } from "../../src/ledger/leases/lease-types.js";
import { backends, useBackend } from "./backends.js";

const HOUR = 3_600_000;
const T0 = 1_700_000_000_000;
const repoA = { repoId: 100, repo: "octo/alpha" };
const repoB = { repoId: 200, repo: "octo/beta" };
const key = (issue: number, r = repoA): IssueKey => ({ ...r, issue });
const alice: Holder = { id: 1, login: "alice" };
const alice2: Holder = { id: 1, login: "alice2" };
const bob: Holder = { id: 2, login: "bob" };

describe.each(backends)("renameHolder: $name", (backend) => {
  const { ledger } = useBackend(backend);

  it("renames the holder's live leases in every repository, with one effect each naming the repository's installation", async () => {
    await ledger.rememberRepo({ ...repoA, installation: 7 }, T0);
    await ledger.rememberRepo({ ...repoB, installation: 8 }, T0);
    await ledger.acquire(key(1), alice, HOUR, T0);
    await ledger.acquire(key(2, repoB), alice, HOUR, T0);
    await ledger.acquire(key(3), alice, HOUR, T0 - 2 * HOUR); // expired: left as it was
    await ledger.acquire(key(4), bob, HOUR, T0);

    const renamed = await ledger.renameHolder(repoA.repoId, alice2, T0 + 1, {
      effect: { installation: 0, kind: "reflect", payload: { owner: "", repo: "" } },
    });
    expect(renamed.map((l) => [l.repoId, l.issue, l.holder.login]).sort()).toEqual([
      [repoA.repoId, 1, "alice2"],
      [repoB.repoId, 2, "alice2"],
    ]);
    expect(await ledger.current(key(1), T0 + 2)).toMatchObject({ holder: alice2, token: 1, acquiredAt: T0, expiresAt: T0 + HOUR });
    expect(await ledger.current(key(2, repoB), T0 + 2)).toMatchObject({ holder: alice2 });
    expect(await ledger.current(key(4), T0 + 2)).toMatchObject({ holder: bob });
    const effects = await ledger.takeEffects(T0 + 2, 10, 60_000);
    expect(effects.map((e) => [e.repoId, e.issue, e.installation, e.payload]).sort()).toEqual([
      [repoA.repoId, 1, 7, { owner: "octo", repo: "alpha" }],
      [repoB.repoId, 2, 8, { owner: "octo", repo: "beta" }],
    ]);
  });

  it("changes nothing and writes no effect when the login is the stored one, or the repository holds none of theirs", async () => {
    await ledger.acquire(key(1), alice, HOUR, T0);
    const effect = { installation: 1, kind: "reflect", payload: {} };
    expect(await ledger.renameHolder(repoA.repoId, alice, T0 + 1, { effect })).toEqual([]);
    // The check is in the event's repository: alice holds nothing in B.
    expect(await ledger.renameHolder(repoB.repoId, alice2, T0 + 1, { effect })).toEqual([]);
    expect(await ledger.current(key(1), T0 + 2)).toMatchObject({ holder: alice });
    expect((await ledger.outboxStats()).pending).toBe(0);
  });

  it("a renamed holder's claim is the same tenure, and a release by the new login ends it", async () => {
    await ledger.acquire(key(1), alice, HOUR, T0);
    await ledger.renameHolder(repoA.repoId, alice2, T0 + 1);
    expect(await ledger.acquire(key(1), alice2, HOUR, T0 + 2)).toMatchObject({ outcome: "acquired", newTenure: false, lease: { token: 1 } });
    expect(await ledger.forceRelease(key(1), bob, T0 + 3, { ifHolder: "ALICE2" })).toMatchObject({ outcome: "released" });
  });
});
