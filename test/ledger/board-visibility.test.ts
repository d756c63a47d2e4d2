/**
 * Ledger contract, both backends: a repository's private flag is stored
 * with its time, so that events applied out of order leave the newer flag;
 * repositories an installation no longer serves are forgotten; a deleted or
 * transferred issue's title and labels are dropped for good (issue 19).
 */
import { describe, expect, it } from "vitest";
import type { Holder } from "../../src/ledger/leases/lease-types.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import type { RepoVisibility } from "../../src/ledger/board/board-types.js";
import { backends, useBackend } from "./backends.js";

const HOUR = 3_600_000;
const T0 = 1_700_000_000_000;
const pub = { repoId: 100, repo: "octo/public", installation: 1 };
const other = { repoId: 101, repo: "octo/other", installation: 1 };
const elsewhere = { repoId: 300, repo: "else/where", installation: 2 };
const alice: Holder = { id: 1, login: "alice" };

const shown = async (ledger: Ledger, visible: number[] = []) =>
  (await ledger.boardLeases({ visible, page: 0, pageSize: 100 }, T0 + 1)).leases.map((l) => `${l.repo}#${l.issue} ${l.title ?? "-"} [${l.labels.join(",")}]`);
const holders = async (ledger: Ledger) =>
  (await ledger.boardPanels({ visible: [], top: 10, soonMs: HOUR, endedWithinMs: HOUR, countCap: 10 }, T0 + 1)).holders.map((h) => `${h.holder.login}:${h.leases}`);
const flag = async (ledger: Ledger, name = pub.repo) => (await ledger.boardRepo(name))?.private;
const seen = (r: typeof pub, priv: boolean, updatedAt: number | null, reportsChange = false): RepoVisibility => ({ ...r, private: priv, updatedAt, reportsChange });

describe.each(backends)("board visibility, forgetting and dropped cards: $name", (backend) => {
  const { ledger } = useBackend(backend);

  it("keeps the newer flag whatever the order events come in: an older payload is ignored, private wins a tie unless the change is reported", async () => {
    await ledger.acquire({ ...pub, issue: 1 }, alice, HOUR, T0);
    expect(await ledger.rememberVisibility(seen(pub, false, T0 - 10_000), T0)).toBe(true);
    // Made private at T0 - 5 s; a comment from before it arrives afterwards: still private.
    expect(await ledger.rememberVisibility(seen(pub, true, T0 - 5_000, true), T0)).toBe(true);
    expect(await ledger.rememberVisibility(seen(pub, false, T0 - 10_000), T0)).toBe(false);
    expect(await flag(ledger)).toBe(true);
    expect(await shown(ledger)).toEqual([]);
    expect(await holders(ledger)).toEqual([]);
    // Two payloads GitHub's seconds cannot tell apart: private wins.
    expect(await ledger.rememberVisibility(seen(pub, false, T0 - 5_000), T0)).toBe(false);
    expect(await flag(ledger)).toBe(true);
    // Made public (the event that reports it wins its tie), then a newer event agrees; an older private one changes nothing.
    expect(await ledger.rememberVisibility(seen(pub, false, T0 - 5_000, true), T0)).toBe(true);
    expect(await shown(ledger)).toEqual(["octo/public#1 - []"]);
    expect(await holders(ledger)).toEqual(["alice:1"]);
    expect(await ledger.rememberVisibility(seen(pub, false, T0 - 1_000), T0)).toBe(false);
    expect(await ledger.rememberVisibility(seen(pub, true, T0 - 2_000), T0)).toBe(false);
    expect(await flag(ledger)).toBe(false);
    // A payload without a time makes a repository private, never public.
    expect(await ledger.rememberVisibility(seen(pub, true, null), T0)).toBe(true);
    expect(await ledger.rememberVisibility(seen(pub, false, null), T0)).toBe(false);
    expect(await flag(ledger)).toBe(true);
    // A newer event: public again.
    expect(await ledger.rememberVisibility(seen(pub, false, T0), T0)).toBe(true);
    expect(await holders(ledger)).toEqual(["alice:1"]);
  });

  it("forgets the repositories an installation no longer serves: unknown flag, no titles or labels, counts out of the public scope; others kept", async () => {
    for (const r of [pub, other, elsewhere]) {
      await ledger.rememberVisibility(seen(r, false, T0 - 10_000), T0);
      await ledger.acquire({ ...r, issue: 1 }, alice, HOUR, T0);
      await ledger.rememberCard({ repoId: r.repoId, issue: 1, title: `In ${r.repo}`, labels: ["bug"] }, T0, false);
    }
    expect(await holders(ledger)).toEqual(["alice:3"]);
    // Not the installation that serves it: nothing forgotten.
    expect(await ledger.forgetRepos({ installation: 2, repoIds: [pub.repoId] }, T0)).toBe(0);
    expect(await ledger.forgetRepos({ installation: 1, repoIds: [pub.repoId] }, T0)).toBe(1);
    expect(await flag(ledger)).toBeNull();
    expect(await shown(ledger)).toEqual(["octo/other#1 In octo/other [bug]", "else/where#1 In else/where [bug]"]);
    expect(await shown(ledger, [pub.repoId])).toEqual(["octo/public#1 - []", "octo/other#1 In octo/other [bug]", "else/where#1 In else/where [bug]"]);
    expect((await ledger.boardLeases({ visible: [pub.repoId], label: "bug", page: 0, pageSize: 10 }, T0 + 1)).leases.map((l) => l.repo)).not.toContain(pub.repo);
    expect(await holders(ledger)).toEqual(["alice:2"]);

    // A late event from before: still hidden. One that reports the flag (the repository added again) shows it.
    expect(await ledger.rememberVisibility(seen(pub, false, T0 - 10_000), T0)).toBe(false);
    expect(await flag(ledger)).toBeNull();
    expect(await ledger.rememberVisibility(seen(pub, false, null, true), T0)).toBe(true);
    expect(await holders(ledger)).toEqual(["alice:3"]);

    // The whole installation.
    expect(await ledger.forgetRepos({ installation: 1, repoIds: "all" }, T0)).toBe(2);
    expect(await shown(ledger)).toEqual(["else/where#1 In else/where [bug]"]);
    expect(await holders(ledger)).toEqual(["alice:1"]);
    // After a suspension, the times go too: the next event sets the flag, however old.
    await ledger.forgetRepos({ installation: 1, repoIds: "all", times: true }, T0);
    expect(await ledger.rememberVisibility(seen(other, false, T0 - 20_000), T0)).toBe(true);
    expect(await flag(ledger, other.repo)).toBe(false);
  });

  it("drops a deleted or transferred issue's title and labels for good; the lease rows stay; an issue it never knew leaves no trace", async () => {
    await ledger.rememberVisibility(seen(pub, false, T0), T0);
    await ledger.acquire({ ...pub, issue: 1 }, alice, HOUR, T0);
    await ledger.rememberCard({ repoId: pub.repoId, issue: 1, title: "Gone soon", labels: ["bug"] }, T0, false);
    await ledger.release({ ...pub, issue: 1 }, alice, T0 + 1);
    await ledger.acquire({ ...pub, issue: 2 }, alice, HOUR, T0);
    await ledger.rememberCard({ repoId: pub.repoId, issue: 2, title: "Stays", labels: ["bug"] }, T0, false);
    const ended = async () => (await ledger.boardPanels({ visible: [], top: 10, soonMs: HOUR, endedWithinMs: HOUR, countCap: 10 }, T0 + 2)).ended;
    expect((await ended()).map((e) => e.title)).toEqual(["Gone soon"]);

    await ledger.dropCard({ repoId: pub.repoId, issue: 1 }, T0 + 2);
    expect((await ended()).map((e) => [e.issue, e.title])).toEqual([[1, null]]);
    // A late event, or a claim comment, writes nothing back.
    expect(await ledger.rememberCard({ repoId: pub.repoId, issue: 1, title: "Gone soon", labels: ["bug"] }, T0 + 3, false)).toBe(false);
    expect(await ledger.rememberCard({ repoId: pub.repoId, issue: 1, title: "Gone soon", labels: ["bug"] }, T0 + 3, true)).toBe(false);
    expect((await ended()).map((e) => e.title)).toEqual([null]);
    expect((await ledger.boardLeases({ visible: [], label: "bug", page: 0, pageSize: 10 }, T0 + 3)).leases.map((l) => l.issue)).toEqual([2]);
    expect(await ledger.history({ ...pub, issue: 1 })).not.toEqual([]);

    // A live lease's issue deleted: the row shows no title.
    await ledger.dropCard({ repoId: pub.repoId, issue: 2 }, T0 + 3);
    expect(await shown(ledger)).toEqual(["octo/public#2 - []"]);
    // An issue the ledger never knew: nothing written, and a claim of it may still keep its card.
    await ledger.dropCard({ repoId: pub.repoId, issue: 7 }, T0 + 3);
    expect(await ledger.rememberCard({ repoId: pub.repoId, issue: 7, title: "Seven", labels: [] }, T0 + 4, true)).toBe(true);
  });
});
