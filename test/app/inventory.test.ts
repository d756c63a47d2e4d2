/**
 * The inventory of open issues through the whole app (issue 22): kept from
 * `issues` events (real payloads), filled from GitHub's issue list within
 * a bound of requests, reconciled after a missed webhook, and forgotten
 * when the repository leaves the installation.
 */
import nock from "nock";
import { describe, expect, it } from "vitest";
import { API, useApp } from "../support/app-harness.js";
import { INSTALLATION_ID, installationReposPayload, issuesPayload, isoSeconds, REPO } from "../support/payloads.js";

const HOUR = 3_600_000;
const FULL = `${REPO.owner}/${REPO.name}`;
const INFO = { repoId: REPO.id, repo: FULL, installation: INSTALLATION_ID };
const T_ISSUES = Date.parse("2026-01-01T00:00:00Z");

/** GitHub's issue list JSON for issue `n` (every tenth a pull request, as GitHub lists them too). */
const item = (n: number, labels: string[] = []) => ({
  number: n,
  title: `issue ${n}`,
  state: "open",
  labels: labels.map((name) => ({ name })),
  assignees: [],
  milestone: null,
  user: { id: 7, login: "author" },
  created_at: isoSeconds(T_ISSUES + n * 1000),
  updated_at: isoSeconds(T_ISSUES + n * 1000),
  ...(n % 10 === 0 ? { pull_request: { url: "" } } : {}),
});

/** Mocks the pages of the open issues `numbers` (100 a page, oldest first), each requested once. */
function listPages(numbers: number[], labels: (n: number) => string[] = () => [], upTo = Infinity): nock.Scope {
  const scope = nock(API);
  const pages = Math.max(1, Math.ceil(numbers.length / 100));
  for (let p = 1; p <= Math.min(pages, upTo); p++) {
    const link = p < pages ? { link: `<${API}/repositories/${REPO.id}/issues?page=${p + 1}>; rel="next"` } : undefined;
    scope
      .get(`/repos/${FULL}/issues`)
      .query({ state: "open", sort: "created", direction: "asc", per_page: "100", page: String(p) })
      .reply(200, numbers.slice((p - 1) * 100, p * 100).map((n) => item(n, labels(n))), link);
  }
  return scope;
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("the inventory of open issues", () => {
  const t = useApp({ budget: {} });
  const ready = async (labels?: string[], limit = 1000) => {
    const page = await t.h.ledger.readyIssues({ repoIds: [REPO.id], limit, ...(labels ? { labels } : {}) }, t.h.now());
    return page.ready.map((r) => r.issue);
  };

  it("fills a repository of 5,000 open issues in 50 requests of the installation's budget, pull requests left out", async () => {
    const scope = listPages(range(1, 5000), (n) => (n % 2 ? ["odd"] : []));
    const r = await t.h.runtime.inventory.fill(INFO);
    expect(r).toEqual({ repoId: REPO.id, requests: 50, issues: 4500, closed: 0, complete: true });
    expect(scope.isDone()).toBe(true);
    expect((await ready()).length).toBe(1000);
    expect(await ready(undefined, 3)).toEqual([1, 2, 3]);
    const odd = await t.h.ledger.readyIssues({ repoIds: [REPO.id], limit: 2, labels: ["ODD"] }, t.h.now());
    expect([odd.ready.map((i) => i.issue), odd.matched]).toEqual([[1, 3], 2500]);
    expect(await t.h.ledger.lastFill(REPO.id)).toEqual({ repoId: REPO.id, filledAt: t.h.now(), issues: 4500 });
  });

  it("a reconcile corrects a missed webhook: an issue closed without an event leaves, one opened without one comes", async () => {
    await t.h.ledger.rememberRepo(INFO, t.h.now());
    listPages([1, 2, 3]);
    expect(await t.h.runtime.inventory.reconcile()).toBe(1);
    expect(await ready()).toEqual([1, 2, 3]);
    // Not due yet: no request.
    t.h.advance(HOUR);
    expect(await t.h.runtime.inventory.reconcile()).toBe(0);
    t.h.advance(6 * HOUR);
    listPages([1, 3, 4]);
    expect(await t.h.runtime.inventory.reconcile()).toBe(1);
    expect(await ready()).toEqual([1, 3, 4]);
  });

  it("follows issues events: opened, labeled, unlabeled, milestoned, closed, reopened, edited (blocked by, sub-issues); an older event changes nothing", async () => {
    const { h } = t;
    const at = (s: number) => h.now() + s * 1000;
    // GitHub's examples are assigned to Codertocat (and one carries a pull_request link): a plain unassigned issue here.
    const receive = (p: Record<string, any>) => h.receive("issues", { ...p, issue: { ...p.issue, assignee: null, assignees: [], pull_request: undefined } });
    await receive(issuesPayload("opened", { issue: 5, at: at(1) }));
    await receive(issuesPayload("labeled", { issue: 5, labels: ["bug"], label: "bug", at: at(2) }));
    expect(await ready(["bug"])).toEqual([5]);
    // A late delivery of the opening (no label) does not take the label back off.
    await receive(issuesPayload("opened", { issue: 5, at: at(1) }));
    expect(await ready(["bug"])).toEqual([5]);
    await receive(issuesPayload("unlabeled", { issue: 5, labels: [], label: "bug", at: at(3) }));
    expect(await ready(["bug"])).toEqual([]);
    const milestoned = issuesPayload("milestoned", { issue: 5, at: at(4) });
    milestoned.issue.milestone = { title: "v1" };
    await receive(milestoned);
    expect((await h.ledger.readyIssues({ repoIds: [REPO.id], limit: 5, milestone: "v1" }, h.now())).ready.map((i) => i.issue)).toEqual([5]);
    await receive(issuesPayload("closed", { issue: 5, at: at(5) }));
    expect(await ready()).toEqual([]);
    await receive(issuesPayload("reopened", { issue: 5, at: at(6) }));
    expect(await ready()).toEqual([5]);
    const blocked = issuesPayload("edited", { issue: 5, at: at(7) });
    blocked.issue.issue_dependencies_summary = { blocked_by: 1, total_blocked_by: 1, blocking: 0, total_blocking: 0 };
    await receive(blocked);
    expect(await ready()).toEqual([]);
    const parent = issuesPayload("edited", { issue: 5, at: at(8) });
    parent.issue.sub_issues_summary = { total: 2, completed: 2, percent_completed: 100 };
    await receive(parent);
    expect(await ready()).toEqual([5]);
  });

  it("a transfer and a deletion remove the issue for good; a repository removed from the installation is forgotten", async () => {
    const { h } = t;
    listPages([1, 2, 3]);
    await h.runtime.inventory.fill(INFO);
    await h.receive("issues", issuesPayload("transferred", { issue: 1, at: h.now() }));
    await h.receive("issues", issuesPayload("deleted", { issue: 2, at: h.now() }));
    expect(await ready()).toEqual([3]);
    // A late event of a deleted issue does not bring it back.
    await h.receive("issues", issuesPayload("labeled", { issue: 2, labels: ["bug"], label: "bug", at: h.now() + 60_000 }));
    expect(await ready()).toEqual([3]);
    await h.receive("installation_repositories", installationReposPayload("removed", [{ id: REPO.id, name: REPO.name }]));
    expect(await ready()).toEqual([]);
    expect(await h.ledger.lastFill(REPO.id)).toBeNull();
  });
});

describe("a fill cut short", () => {
  const t = useApp({ inventory: { maxPages: 3 } });

  it("stops at the bound of requests per fill, and then closes nothing", async () => {
    const { h } = t;
    const scope = listPages(range(1, 500), () => [], 3);
    await h.ledger.rememberIssues([snapOf(9999)], h.now());
    const r = await h.runtime.inventory.fill(INFO);
    expect(r).toEqual({ repoId: REPO.id, requests: 3, issues: 270, closed: 0, complete: false });
    expect(scope.isDone()).toBe(true);
    // Not seen, but the fill did not see everything: still open.
    expect((await h.ledger.readyIssues({ repoIds: [REPO.id], limit: 1 }, h.now())).ready.map((i) => i.issue)).toEqual([9999]);
  });
});

function snapOf(issue: number) {
  return {
    repoId: REPO.id, issue, title: "", labels: [], assignees: [], milestone: null, author: null, createdAt: T_ISSUES - 1000, state: "open" as const,
    blockedByOpen: null, openSubIssues: null, updatedAt: T_ISSUES,
  };
}
