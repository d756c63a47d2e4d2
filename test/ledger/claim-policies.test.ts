/**
 * Claim limits by label and across an organisation (issue 11), on every
 * backend: each checked in the acquire's transaction, so that two claims at
 * a limit never both win, even from two ledgers on one store (two processes,
 * or two replicas).
 */
import { describe, expect, it } from "vitest";
import type { AcquireOptions } from "../../src/ledger/leases/lease-roles.js";
import type { AcquireResult, Holder, IssueKey, Lease } from "../../src/ledger/leases/lease-types.js";
import { backends, useBackend } from "./backends.js";

const HOUR = 3_600_000;
const T0 = 1_700_000_000_000;

const repoA = { repoId: 100, repo: "acme/alpha" };
const repoB = { repoId: 200, repo: "acme/beta" };
const repoC = { repoId: 300, repo: "other/gamma" };
const key = (issue: number, r: { repoId: number; repo: string } = repoA): IssueKey => ({ ...r, issue });

const alice: Holder = { id: 1, login: "alice" };
const bob: Holder = { id: 2, login: "bob" };
const maint: Holder = { id: 9, login: "maint" };

const GFI = "good first issue";
/** A claim of an issue labelled `labels`, under a limit of `limit` per person on `good first issue`. */
const byLabel = (labels: string[], limit = 1): AcquireOptions => ({ policies: { labels, byLabel: [{ label: GFI, limit }] } });
const inOrg = (installation: number, limit: number, extra: AcquireOptions = {}): AcquireOptions => ({
  ...extra,
  policies: { ...extra.policies, org: { installation, limit } },
});

function leaseOf(r: AcquireResult): Lease {
  if (r.outcome !== "acquired") throw new Error(`expected acquired, got ${JSON.stringify(r)}`);
  return r.lease;
}

describe.each(backends)("claim policies: $name", (backend) => {
  const { ledger, store } = useBackend(backend);

  describe("limits_by_label", () => {
    it("refuses a person at the limit on issues carrying the label, listing them, and allows other issues", async () => {
      const first = leaseOf(await ledger.acquire(key(1), alice, HOUR, T0, byLabel([GFI, "docs"])));
      const refused = await ledger.acquire(key(2), alice, HOUR, T0 + 1, byLabel(["Good First Issue"]));
      expect(refused).toEqual({ outcome: "limit", limit: 1, held: [first], scope: { kind: "label", label: GFI }, duplicate: false });
      expect(await ledger.current(key(2), T0 + 1)).toBeNull();
      // An issue without the label, someone else, another repository: not limited.
      expect(await ledger.acquire(key(3), alice, HOUR, T0 + 2, byLabel(["docs"]))).toMatchObject({ outcome: "acquired" });
      expect(await ledger.acquire(key(2), bob, HOUR, T0 + 3, byLabel([GFI]))).toMatchObject({ outcome: "acquired" });
      expect(await ledger.acquire(key(1, repoB), alice, HOUR, T0 + 4, byLabel([GFI]))).toMatchObject({ outcome: "acquired" });
      // Claiming again what one holds is not a new lease and is not limited.
      expect(await ledger.acquire(key(1), alice, HOUR, T0 + 5, byLabel([GFI]))).toMatchObject({ outcome: "acquired", newTenure: false });
    });

    it("counts each lease under the labels its issue had when claimed, live leases only, and a limit of 0 as none", async () => {
      // Claimed before the label was added: it does not count under it.
      await ledger.acquire(key(1), alice, HOUR, T0, byLabel(["docs"]));
      expect(await ledger.acquire(key(2), alice, HOUR, T0 + 1, byLabel([GFI]))).toMatchObject({ outcome: "acquired" });
      expect(await ledger.acquire(key(3), alice, HOUR, T0 + 2, byLabel([GFI]))).toMatchObject({ outcome: "limit", held: [{ issue: 2 }] });
      expect(await ledger.acquire(key(3), alice, HOUR, T0 + 2, byLabel([GFI], 0))).toMatchObject({ outcome: "acquired" });
      expect(await ledger.acquire(key(4), alice, HOUR, T0 + 3, byLabel([GFI], 3))).toMatchObject({ outcome: "acquired" });
      // Once they expired, there is room again.
      expect(await ledger.acquire(key(5), alice, HOUR, T0 + HOUR + 4, byLabel([GFI]))).toMatchObject({ outcome: "acquired" });
    });

    it("forgets a label with the tenure that had it: a new tenure counts under its own labels only", async () => {
      await ledger.acquire(key(1), alice, HOUR, T0, byLabel([GFI]));
      await ledger.release(key(1), alice, T0 + 1);
      // Claimed again after the label was taken off: not under it.
      await ledger.acquire(key(1), alice, HOUR, T0 + 2, byLabel(["docs"]));
      expect(await ledger.acquire(key(2), alice, HOUR, T0 + 3, byLabel([GFI]))).toMatchObject({ outcome: "acquired" });
      // Someone else's tenure of an issue alice once held under the label counts for them, not her.
      await ledger.release(key(1), alice, T0 + 4);
      await ledger.acquire(key(1), bob, HOUR, T0 + 5, byLabel([GFI]));
      expect(await ledger.acquire(key(3), bob, HOUR, T0 + 6, byLabel([GFI]))).toMatchObject({ outcome: "limit", held: [{ issue: 1 }] });
    });

    it("checks the repository's limit first, then each label's in the config's order", async () => {
      const both = { maxPerHolder: 1, policies: { labels: [GFI, "docs"], byLabel: [{ label: "docs", limit: 1 }, { label: GFI, limit: 1 }] } };
      await ledger.acquire(key(1), alice, HOUR, T0, both);
      expect(await ledger.acquire(key(2), alice, HOUR, T0 + 1, both)).toMatchObject({ outcome: "limit", limit: 1 });
      expect(await ledger.acquire(key(2), alice, HOUR, T0 + 1, both)).not.toHaveProperty("scope");
      expect(await ledger.acquire(key(2), alice, HOUR, T0 + 1, { policies: both.policies })).toMatchObject({ scope: { kind: "label", label: "docs" } });
    });

    it("lets one of two claims racing at the limit win, from two ledgers on one store", async () => {
      const other = store().another ? await store().another!() : ledger;
      for (let round = 0; round < 5; round++) {
        const holder = { id: 100 + round, login: `racer${round}` };
        const results = await Promise.all([
          ledger.acquire(key(10 * round + 1), holder, HOUR, T0, byLabel([GFI])),
          other.acquire(key(10 * round + 2), holder, HOUR, T0, byLabel([GFI])),
          ledger.acquire(key(10 * round + 3), holder, HOUR, T0, byLabel([GFI])),
        ]);
        expect(results.map((r) => r.outcome).sort()).toEqual(["acquired", "limit", "limit"]);
        expect(await ledger.listHeldBy(holder.id, T0)).toHaveLength(1);
      }
    });
  });

  describe("max_leases_per_holder_in_org", () => {
    it("counts the person's leases in every repository of the installation, and this one even before it is remembered", async () => {
      await ledger.rememberRepo({ repoId: repoA.repoId, repo: repoA.repo, installation: 7 }, T0);
      await ledger.rememberRepo({ repoId: repoB.repoId, repo: repoB.repo, installation: 7 }, T0);
      await ledger.rememberRepo({ repoId: repoC.repoId, repo: repoC.repo, installation: 8 }, T0);
      const a = leaseOf(await ledger.acquire(key(1, repoA), alice, HOUR, T0, inOrg(7, 2)));
      const b = leaseOf(await ledger.acquire(key(1, repoB), alice, HOUR, T0 + 1, inOrg(7, 2)));
      const refused = await ledger.acquire(key(2, repoA), alice, HOUR, T0 + 2, inOrg(7, 2));
      expect(refused).toEqual({ outcome: "limit", limit: 2, held: [a, b], scope: { kind: "org" }, duplicate: false });
      // Another installation's repository is another organisation.
      expect(await ledger.acquire(key(1, repoC), alice, HOUR, T0 + 3, inOrg(8, 1))).toMatchObject({ outcome: "acquired" });
      // A repository not remembered yet: its own leases count.
      const repoD = { repoId: 400, repo: "acme/delta" };
      await ledger.acquire(key(1, repoD), bob, HOUR, T0, inOrg(7, 1));
      expect(await ledger.acquire(key(2, repoD), bob, HOUR, T0 + 1, inOrg(7, 1))).toMatchObject({ outcome: "limit", held: [{ issue: 1 }] });
      // Released or expired leases do not count.
      await ledger.release(key(1, repoB), alice, T0 + 4);
      expect(await ledger.acquire(key(2, repoA), alice, HOUR, T0 + 5, inOrg(7, 2))).toMatchObject({ outcome: "acquired" });
      expect(await ledger.acquire(key(3, repoB), alice, HOUR, T0 + HOUR + 6, inOrg(7, 2))).toMatchObject({ outcome: "acquired" });
    });

    it("lets one of two claims racing in two repositories win", async () => {
      await ledger.rememberRepo({ repoId: repoA.repoId, repo: repoA.repo, installation: 7 }, T0);
      await ledger.rememberRepo({ repoId: repoB.repoId, repo: repoB.repo, installation: 7 }, T0);
      const other = store().another ? await store().another!() : ledger;
      for (let round = 0; round < 5; round++) {
        const holder = { id: 200 + round, login: `racer${round}` };
        const results = await Promise.all([
          ledger.acquire(key(round + 1, repoA), holder, HOUR, T0, inOrg(7, 1)),
          other.acquire(key(round + 1, repoB), holder, HOUR, T0, inOrg(7, 1)),
        ]);
        expect(results.map((r) => r.outcome).sort()).toEqual(["acquired", "limit"]);
        expect(await ledger.listHeldBy(holder.id, T0)).toHaveLength(1);
      }
    });
  });

  it("records who gave a lease as the history's actor, the holder as its holder", async () => {
    await ledger.acquire(key(1), alice, HOUR, T0, { actor: maint });
    const [entry] = await ledger.history(key(1));
    expect(entry).toMatchObject({ op: "acquire", outcome: "acquired", actor: maint, holder: alice, token: 1 });
  });
});
