/**
 * Ledger contract, both backends: the board's side panels answer under the
 * page's filters (a repository's page lists that repository's holders,
 * expiries and ended tenures only), and each page says how many live
 * leases its filters match, among what the viewer may see (issue 19).
 */
import { describe, expect, it } from "vitest";
import type { Holder, IssueKey } from "../../src/ledger/leases/lease-types.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import type { BoardFilter, BoardPanelsQuery } from "../../src/ledger/board/board-types.js";
import { backends, useBackend } from "./backends.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = 1_700_000_000_000;
const widgets = { repoId: 100, repo: "org/widgets" };
const gadgets = { repoId: 101, repo: "org/gadgets" };
const secret = { repoId: 200, repo: "org/secret" };
const key = (r: { repoId: number; repo: string }, issue: number): IssueKey => ({ ...r, issue });
const alice: Holder = { id: 1, login: "alice" };
const bob: Holder = { id: 2, login: "bob" };
const carol: Holder = { id: 3, login: "Carol" };

const panelsOf = async (ledger: Ledger, filter: Partial<BoardFilter> = {}, now = T0 + 2 * HOUR) => {
  const q: BoardPanelsQuery = { visible: [], top: 10, soonMs: DAY, endedWithinMs: 7 * DAY, countCap: 100, ...filter };
  const p = await ledger.boardPanels(q, now);
  return {
    holders: p.holders.map((h) => `${h.holder.login}:${h.leases}`),
    expiring: p.expiring.map((l) => `${l.repo}#${l.issue}`),
    expiringCount: p.expiringCount,
    ended: p.ended.map((e) => `${e.repo}#${e.issue} ${e.holder.login}`),
  };
};
const totalOf = async (ledger: Ledger, filter: Partial<BoardFilter> = {}, now = T0 + 2 * HOUR, pageSize = 100) =>
  (await ledger.boardLeases({ visible: [], page: 0, pageSize, ...filter }, now)).total;

/** Two public repositories and a private one, with live leases, one expired and not swept, and ended tenures in each. */
async function world(ledger: Ledger) {
  await ledger.rememberVisibility({ ...widgets, installation: 1, private: false }, T0);
  await ledger.rememberVisibility({ ...gadgets, installation: 1, private: false }, T0);
  await ledger.rememberVisibility({ ...secret, installation: 1, private: true }, T0);
  await ledger.acquire(key(widgets, 1), alice, 3 * HOUR, T0);
  await ledger.acquire(key(widgets, 2), bob, 30 * HOUR, T0);
  await ledger.acquire(key(widgets, 3), bob, null, T0);
  await ledger.acquire(key(widgets, 4), carol, HOUR, T0); // expired at T0 + 1h, not swept
  await ledger.acquire(key(gadgets, 1), carol, 4 * HOUR, T0);
  await ledger.acquire(key(gadgets, 2), carol, 5 * HOUR, T0);
  await ledger.acquire(key(gadgets, 3), alice, 6 * HOUR, T0);
  await ledger.acquire(key(secret, 1), bob, 2 * HOUR + HOUR / 2, T0);
  await ledger.acquire(key(widgets, 9), alice, HOUR, T0);
  await ledger.release(key(widgets, 9), alice, T0 + 1);
  await ledger.acquire(key(gadgets, 9), bob, HOUR, T0);
  await ledger.release(key(gadgets, 9), bob, T0 + 2);
  await ledger.rememberCard({ repoId: widgets.repoId, issue: 2, title: "Two", labels: ["bug"] }, T0, false);
  await ledger.rememberCard({ repoId: gadgets.repoId, issue: 1, title: "One", labels: ["Bug"] }, T0, false);
  await ledger.rememberCard({ repoId: gadgets.repoId, issue: 9, title: "Nine", labels: ["bug"] }, T0, false);
}

describe.each(backends)("board panels under the filters, and the total: $name", (backend) => {
  const { ledger } = useBackend(backend);

  it("a repository's page: its holders, expiries and ended tenures only; and how many leases it has", async () => {
    await world(ledger);
    expect(await panelsOf(ledger, { repoId: widgets.repoId })).toEqual({
      holders: ["bob:2", "alice:1"],
      expiring: ["org/widgets#1"],
      expiringCount: 1,
      ended: ["org/widgets#9 alice"],
    });
    expect(await totalOf(ledger, { repoId: widgets.repoId })).toBe(3);
    expect(await panelsOf(ledger, { repoId: gadgets.repoId })).toEqual({
      holders: ["Carol:2", "alice:1"],
      expiring: ["org/gadgets#1", "org/gadgets#2", "org/gadgets#3"],
      expiringCount: 3,
      ended: ["org/gadgets#9 bob"],
    });
    // A private repository, for a viewer who may see it.
    expect(await panelsOf(ledger, { repoId: secret.repoId, visible: [secret.repoId] })).toEqual({
      holders: ["bob:1"],
      expiring: ["org/secret#1"],
      expiringCount: 1,
      ended: [],
    });
  });

  it("a holder's and a label's page: the panels and the total under those filters, and what the viewer may see", async () => {
    await world(ledger);
    expect(await panelsOf(ledger, { holder: { login: "BOB" } })).toEqual({
      holders: ["bob:2"],
      expiring: [],
      expiringCount: 0,
      ended: ["org/gadgets#9 bob"],
    });
    expect(await totalOf(ledger, { holder: { login: "bob" } })).toBe(2);
    expect(await totalOf(ledger, { holder: { login: "bob" }, visible: [secret.repoId] })).toBe(3);
    expect(await totalOf(ledger, { holder: { login: "bob", id: alice.id } })).toBe(0);
    expect((await panelsOf(ledger, { holder: { login: "bob", id: bob.id }, visible: [secret.repoId] })).holders).toEqual(["bob:3"]);
    expect(await panelsOf(ledger, { label: "BUG" })).toEqual({
      holders: ["bob:1", "Carol:1"],
      expiring: ["org/gadgets#1"],
      expiringCount: 1,
      ended: ["org/gadgets#9 bob"],
    });
    expect(await totalOf(ledger, { label: "bug", repoId: gadgets.repoId })).toBe(1);
  });

  it("unfiltered: the total counts every live lease the viewer may see, not the expired ones awaiting the sweep, on every page", async () => {
    await world(ledger);
    expect(await totalOf(ledger)).toBe(6);
    expect(await totalOf(ledger, { visible: [secret.repoId] })).toBe(7);
    expect(await totalOf(ledger, {}, T0 + 2 * HOUR, 2)).toBe(6);
    expect((await ledger.boardLeases({ visible: [], page: 5, pageSize: 2 }, T0 + 2 * HOUR)).total).toBe(6);
    // Before carol's lease expired it counted; once swept, it is not counted twice.
    expect(await totalOf(ledger, {}, T0 + 1)).toBe(7);
    await ledger.markExpired(key(widgets, 4), 1, T0 + HOUR + 1);
    expect(await totalOf(ledger)).toBe(6);
    // The same as counting the pages.
    const all = await ledger.boardLeases({ visible: [secret.repoId], page: 0, pageSize: 100 }, T0 + 2 * HOUR);
    expect(all.leases).toHaveLength(all.total);
  });
});
