/**
 * The check effect's links from issues to the pull requests that close them,
 * under concurrency: on each backend, with a fake GitHub port and reads of
 * the ledger slowed down so that two relinks would interleave if they could.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Effect } from "../../src/ledger/outbox/outbox-types.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import type { GitHubPort } from "../../src/github/github-port.js";
import { CHECK, type CheckPayload } from "../../src/outbox/effects.js";
import { applyCheck, type PullLinks } from "../../src/outbox/pull-check.js";
import { backends, type OpenedBackend } from "../ledger/backends.js";

const T0 = Date.parse("2026-12-01T12:00:00Z");
const REPO_ID = 100;

/** The ledger, with every reflection read taking a few milliseconds, as a remote database's would. */
function slowReads(ledger: Ledger): Ledger {
  return new Proxy(ledger, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === "getReflection") {
        return async (repoId: number, issue: number) => {
          const state = await target.getReflection(repoId, issue);
          await new Promise((resolve) => setTimeout(resolve, 5));
          return state;
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** A GitHub on which each pull request closes the issue `closes` says (default 1); check runs are counted. */
function fakeGitHub(posted: string[], closes: Record<number, number> = {}): GitHubPort {
  const port: Partial<GitHubPort> = {
    async closingIssues(_r, pull) {
      return { linked: [{ number: closes[pull] ?? 1, repoId: REPO_ID }], linkedTotal: 1, title: "", commitMessages: [] };
    },
    async createCheckRun(_r, check) {
      posted.push(check.headSha);
    },
  };
  return port as GitHubPort;
}

function checkEffect(pull: number): Effect {
  const payload: CheckPayload = {
    owner: "octo",
    repo: "alpha",
    pull,
    seen: { headSha: `sha-${pull}`, author: { id: pull, login: `u${pull}` }, tokenAll: null, tokenByIssue: [], requireLease: false },
  };
  return { id: pull, repoId: REPO_ID, issue: pull, installation: 7, kind: CHECK, payload, attempts: 1, createdAt: T0, nonce: null, late: false };
}

describe.each(backends)("pull request links: $name", (backend) => {
  let store: OpenedBackend;

  beforeEach(async () => {
    store = await backend.open();
  });
  afterEach(async () => {
    await store.cleanup();
  });

  it("keeps both links when two pull requests closing one issue are checked at once", async () => {
    // On PostgreSQL, two replicas; SQLite is served by one process.
    const first = slowReads(store.ledger);
    const second = store.ledger.sharedByProcesses ? slowReads(await store.another!()) : first;
    const posted: string[] = [];
    const run = (ledger: Ledger, owner: string, pull: number) =>
      applyCheck({ ledger, clock: () => T0, owner }, checkEffect(pull), checkEffect(pull).payload as CheckPayload, fakeGitHub(posted));
    await Promise.all([run(first, "replica-a", 2), run(second, "replica-b", 3), run(first, "replica-a", 4)]);

    expect(posted.sort()).toEqual(["sha-2", "sha-3", "sha-4"]);
    const links = (await store.ledger.getReflection(REPO_ID, -1)) as PullLinks;
    expect(links.closedBy?.sort()).toEqual([2, 3, 4]);
  });

  it("keeps a pull request's record and the link to it when another pull request closes it at the same time", async () => {
    const ledger = slowReads(store.ledger);
    const posted: string[] = [];
    const github = fakeGitHub(posted, { 3: 2 });
    const run = (pull: number) =>
      applyCheck({ ledger, clock: () => T0, owner: "a" }, checkEffect(pull), checkEffect(pull).payload as CheckPayload, github);
    await Promise.all([run(2), run(3)]);

    expect(await store.ledger.getReflection(REPO_ID, -2)).toMatchObject({ closedBy: [3], pull: { headSha: "sha-2", refs: [1] } });
  });
});
