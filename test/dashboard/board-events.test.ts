/**
 * What the board keeps of a repository and its issues as the events that
 * change them arrive, through `probot.receive` with GitHub's example
 * payloads, on SQLite and PostgreSQL (issue 19): repositories the
 * installation no longer serves are forgotten (uninstalled, removed,
 * suspended, deleted), a late event from before a repository was made
 * private does not make it public again, and a deleted or transferred
 * issue's title and labels are dropped for good.
 */
import { randomUUID } from "node:crypto";
import { Probot } from "probot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { issueLeases, type Runtime } from "../../src/app.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { backends, type OpenedBackend } from "../ledger/backends.js";
import { APP_ID, strictNock, UnthrottledOctokit } from "../support/app-harness.js";
import {
  alice,
  bob,
  commentPayload,
  installationPayload,
  installationReposPayload,
  issuesPayload,
  REPO,
  repositoryPayload,
} from "../support/payloads.js";

const T0 = Date.parse("2026-12-01T12:00:00Z");
const HOUR = 3_600_000;
const OTHER = { id: 777_000_002, name: "widgets" };
const key = (issue: number, r: { id: number; name: string } = REPO) => ({ repoId: r.id, repo: `${REPO.owner}/${r.name}`, issue });

/** What an anonymous visitor's board lists: `name#issue title [labels]`. */
async function board(ledger: Ledger, visible: number[] = []): Promise<string[]> {
  const page = await ledger.boardLeases({ visible, page: 0, pageSize: 100 }, T0 + 1);
  return page.leases.map((l) => `${l.repo.split("/")[1]}#${l.issue} ${l.title ?? "-"} [${l.labels.join(",")}]`);
}

/** An `issues.edited` payload that shows issue `issue` of `r` with its title and labels, the repository public or not, as of `at`. */
function edited(issue: number, title: string, opts: { repo?: { id: number; name: string }; private?: boolean; at?: number } = {}) {
  const p = issuesPayload("edited", { issue, labels: ["bug"] });
  p.issue.title = title;
  const r = opts.repo ?? REPO;
  p.repository = { ...p.repository, id: r.id, name: r.name, full_name: `${REPO.owner}/${r.name}`, private: opts.private ?? false };
  if (opts.at !== undefined) p.repository.updated_at = new Date(opts.at).toISOString().replace(".000Z", "Z");
  return p;
}

describe.each(backends)("the board's memory through webhooks: $name", (backend) => {
  let store: OpenedBackend;
  let probot: Probot;
  let runtime: Runtime;
  let mock: ReturnType<typeof strictNock>;
  const receive = (name: string, payload: Record<string, unknown>) => probot.receive({ id: randomUUID(), name, payload } as never);

  beforeEach(async () => {
    mock = strictNock();
    store = await backend.open();
    // The app closes its ledger at shutdown; the store's cleanup closes it again.
    const ledger = Object.create(store.ledger, { close: { value: async () => {} } }) as Ledger;
    probot = new Probot({ appId: APP_ID, githubToken: "test-token", Octokit: UnthrottledOctokit, logLevel: "fatal" });
    let ready: Runtime | undefined;
    await probot.load(issueLeases({ ledger, clock: () => T0, background: false, handleSignals: false, appId: APP_ID, onReady: (r) => (ready = r) }));
    runtime = ready!;
    for (const r of [REPO, OTHER]) {
      await store.ledger.acquire(key(1, r), { id: alice.id, login: alice.login }, 2 * HOUR, T0);
      await receive("issues", edited(1, `Title in ${r.name}`, { repo: r, at: T0 - HOUR }));
    }
    expect(await board(store.ledger)).toEqual(["Hello-World#1 Title in Hello-World [bug]", "widgets#1 Title in widgets [bug]"]);
  });
  afterEach(async () => {
    await runtime.shutdown();
    await store.cleanup();
    mock.verify();
  });

  it("forgets a repository removed from the installation, shows it again once added back; a late event from before changes nothing", async () => {
    await receive("installation_repositories", installationReposPayload("removed", [REPO]));
    expect(await board(store.ledger)).toEqual(["widgets#1 Title in widgets [bug]"]);
    // Not even its title is kept for a viewer who could see it.
    expect(await board(store.ledger, [REPO.id])).toEqual(["Hello-World#1 - []", "widgets#1 Title in widgets [bug]"]);
    await receive("issues", edited(1, "Title in Hello-World", { at: T0 - HOUR }));
    expect(await board(store.ledger)).toEqual(["widgets#1 Title in widgets [bug]"]);

    await receive("installation_repositories", installationReposPayload("added", [REPO]));
    await receive("issues", edited(1, "Title in Hello-World", { at: T0 - HOUR }));
    expect(await board(store.ledger)).toEqual(["Hello-World#1 Title in Hello-World [bug]", "widgets#1 Title in widgets [bug]"]);
  });

  it("forgets every repository of a deleted installation, and of a suspended one until it is unsuspended", async () => {
    await receive("installation", installationPayload("deleted", [REPO]));
    expect(await board(store.ledger)).toEqual([]);
    expect(await store.ledger.boardRepo(`${REPO.owner}/${OTHER.name}`)).toMatchObject({ private: null });

    await receive("installation", installationPayload("created", [REPO, OTHER]));
    expect((await board(store.ledger)).map((r) => r.split(" ")[0])).toEqual(["Hello-World#1", "widgets#1"]);
    await receive("installation", installationPayload("suspend"));
    expect(await board(store.ledger)).toEqual([]);
    await receive("installation", installationPayload("unsuspend"));
    await receive("issues", edited(1, "Back", { at: T0 - HOUR }));
    expect(await board(store.ledger)).toEqual(["Hello-World#1 Back [bug]"]);
  });

  it("keeps a repository private when an event from before it was made private arrives late; made public again, it shows", async () => {
    await receive("repository", repositoryPayload("privatized", { at: T0 - HOUR / 2 }));
    expect(await board(store.ledger)).toEqual(["widgets#1 Title in widgets [bug]"]);
    // Sent before the repository was made private, delivered after.
    await receive("issues", edited(1, "Title in Hello-World", { at: T0 - HOUR }));
    const late = commentPayload({ body: "any news?", author: bob, issue: 1, labels: ["bug"] });
    late.issue.title = "Title in Hello-World";
    late.repository.updated_at = new Date(T0 - HOUR).toISOString();
    await receive("issue_comment", late);
    expect(await board(store.ledger)).toEqual(["widgets#1 Title in widgets [bug]"]);
    expect(await store.ledger.boardRepo(`${REPO.owner}/${REPO.name}`)).toMatchObject({ private: true });

    await receive("repository", repositoryPayload("publicized", { at: T0 - HOUR / 4 }));
    expect(await board(store.ledger)).toEqual(["Hello-World#1 Title in Hello-World [bug]", "widgets#1 Title in widgets [bug]"]);
    // And a deleted repository is forgotten.
    await receive("repository", repositoryPayload("deleted", { at: T0 }));
    expect(await board(store.ledger)).toEqual(["widgets#1 Title in widgets [bug]"]);
  });

  it("drops a deleted or transferred issue's title and labels, and a late event does not bring them back; the lease rows stay", async () => {
    await store.ledger.acquire(key(2), { id: bob.id, login: bob.login }, 2 * HOUR, T0);
    await receive("issues", edited(2, "Moving out", { at: T0 - HOUR }));
    await receive("issues", issuesPayload("deleted", { issue: 1 }));
    await receive("issues", issuesPayload("transferred", { issue: 2 }));
    expect(await board(store.ledger)).toEqual(["widgets#1 Title in widgets [bug]"]);
    await receive("issues", edited(1, "Title in Hello-World", { at: T0 - HOUR }));
    await receive("issues", edited(2, "Moving out", { at: T0 - HOUR }));
    const ended = await store.ledger.boardPanels({ visible: [], top: 10, soonMs: HOUR, endedWithinMs: HOUR, countCap: 10 }, T0 + 1);
    expect(ended.ended.map((e) => [e.repo, e.issue, e.title]).sort()).toEqual([
      [`${REPO.owner}/${REPO.name}`, 1, null],
      [`${REPO.owner}/${REPO.name}`, 2, null],
    ]);
    expect((await store.ledger.history(key(1))).length).toBeGreaterThan(0);
  });
});
