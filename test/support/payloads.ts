/**
 * Real webhook payloads from @octokit/webhooks-examples, with the fields a
 * test cares about overridden. Every test payload starts from GitHub's own
 * example, so the app is tested against the shapes GitHub sends.
 */
import { userId } from "./fake-github/json-shapes.js";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const examples = require("@octokit/webhooks-examples") as Array<{ name: string; examples: Array<Record<string, any>> }>;

function example(name: string, action: string | undefined, pick?: (p: Record<string, any>) => boolean): Record<string, any> {
  const group = examples.find((e) => e.name === name);
  const found = group?.examples.find((p) => (action === undefined || p.action === action) && (pick?.(p) ?? true));
  if (!found) throw new Error(`no ${name}.${action} example`);
  return structuredClone(found);
}

export const INSTALLATION_ID = 4242;
export const REPO = { id: 186853002, owner: "Codertocat", name: "Hello-World" };

export interface UserSpec {
  login: string;
  id: number;
  type?: "User" | "Bot";
  association?: string;
}

export const alice: UserSpec = { login: "alice", id: 1001, association: "CONTRIBUTOR" };
export const bob: UserSpec = { login: "bob", id: 1002, association: "CONTRIBUTOR" };
export const maintainer: UserSpec = { login: "maint", id: 1003, association: "MEMBER" };
export const robot: UserSpec = { login: "helper-bot[bot]", id: 1004, type: "Bot", association: "NONE" };

/** Node ids as the fake GitHub makes them (fake-github/json-shapes.ts), so that an app on the fake can send them to GraphQL. */
function user(base: Record<string, any>, u: UserSpec): Record<string, any> {
  const type = u.type ?? "User";
  return { ...base, login: u.login, id: u.id, node_id: type === "User" ? `U_${userId(u.login)}` : `BOT_${u.id}`, type };
}

/** The issue's and the repository's node ids, as the fake makes them for a repository of the payload's id. */
function fakeNodeIds(p: Record<string, any>): void {
  p.repository.node_id = `R_${p.repository.id}`;
  p.issue.node_id = `I_${p.repository.id * 1_000_000 + p.issue.number}`;
}

export interface CommentSpec {
  body: string;
  author?: UserSpec;
  issue?: number;
  labels?: string[];
  pullRequest?: boolean;
  commentId?: number;
  /** Edited: the previous body. */
  previousBody?: string;
  performedViaAppId?: number;
  /** Default: "edited" when previousBody is given, else "created". */
  action?: "created" | "edited" | "deleted";
  /** Who sent the event (for an edit: who edited it); default the author. */
  sender?: UserSpec;
  /** The issue's state; default open. */
  state?: "open" | "closed";
  /** Who opened the issue, and when (default: the example's, in 2019). */
  issueAuthor?: UserSpec;
  issueCreatedAt?: number;
  /** Another repository of the same owner and installation (default: Codertocat/Hello-World). */
  repo?: { id: number; name: string };
}

/** An `issue_comment.created` payload (`.edited` with previousBody, or the `action` given). */
export function commentPayload(spec: CommentSpec): Record<string, any> {
  const action = spec.action ?? (spec.previousBody === undefined ? "created" : "edited");
  const p = example("issue_comment", action);
  const author = spec.author ?? alice;
  p.comment.body = spec.body;
  p.comment.id = spec.commentId ?? Math.floor(Math.random() * 1e9);
  p.comment.user = user(p.comment.user, author);
  p.comment.author_association = author.association ?? "CONTRIBUTOR";
  p.comment.performed_via_github_app = spec.performedViaAppId ? { id: spec.performedViaAppId, slug: "issue-leases" } : null;
  p.issue.number = spec.issue ?? 1;
  p.issue.labels = (spec.labels ?? []).map((name, i) => ({ id: i + 1, node_id: `L_${i}`, url: "", name, color: "ededed", default: false, description: null }));
  if (spec.pullRequest) {
    p.issue.pull_request = { url: "", html_url: "", diff_url: "", patch_url: "", merged_at: null };
  } else {
    delete p.issue.pull_request;
  }
  p.issue.state = spec.state ?? "open";
  if (spec.issueAuthor) p.issue.user = user(p.issue.user, spec.issueAuthor);
  if (spec.issueCreatedAt !== undefined) p.issue.created_at = isoSeconds(spec.issueCreatedAt);
  if (spec.repo) {
    const { owner } = p.repository;
    p.repository = { ...p.repository, id: spec.repo.id, node_id: `R_${spec.repo.id}`, name: spec.repo.name, full_name: `${owner.login}/${spec.repo.name}` };
  }
  p.sender = user(p.sender, spec.sender ?? author);
  fakeNodeIds(p);
  p.installation = { id: INSTALLATION_ID, node_id: "I_1" };
  if (action === "edited") p.changes = { body: { from: spec.previousBody } };
  return p;
}

/** GitHub's timestamps: whole seconds, in ISO form. */
export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/**
 * An `issues.<action>` payload for issue `issue`, by `sender`. `at` is when
 * it happened (the issue's `updated_at`, and `closed_at` when closed): the
 * app ignores an event from before the live tenure began.
 */
export function issuesPayload(
  action: string,
  spec: { issue?: number; sender?: UserSpec; label?: string; labels?: string[]; at?: number; assignee?: UserSpec; state?: "open" | "closed" },
): Record<string, any> {
  const base = example("issues", action === "closed" ? "reopened" : action);
  base.action = action;
  // GitHub's transferred example is from another repository; every other example is Codertocat/Hello-World.
  if (base.repository.id !== REPO.id) base.repository = example("issues", "reopened").repository;
  base.issue.number = spec.issue ?? 1;
  if (action === "closed" || spec.state === "closed") base.issue.state = "closed";
  if (spec.at !== undefined) {
    base.issue.updated_at = isoSeconds(spec.at);
    if (action === "closed") base.issue.closed_at = isoSeconds(spec.at);
  }
  base.issue.labels = (spec.labels ?? []).map((name, i) => ({ id: i + 1, node_id: `L_${i}`, url: "", name, color: "ededed", default: false, description: null }));
  base.sender = user(base.sender, spec.sender ?? maintainer);
  // `assigned`/`unassigned`: who, and the issue's assignees after it (GitHub's example has one, Codertocat).
  if (spec.assignee !== undefined) {
    base.assignee = user(base.assignee, spec.assignee);
    base.issue.assignees = action === "assigned" ? [base.assignee] : [];
    base.issue.assignee = base.issue.assignees[0] ?? null;
  }
  if (spec.label !== undefined) base.label = { id: 99, node_id: "L_99", url: "", name: spec.label, color: "ededed", default: false, description: null };
  fakeNodeIds(base);
  base.installation = { id: INSTALLATION_ID, node_id: "I_1" };
  return base;
}

/** A `push` payload to `ref` touching `files` (one commit), its head `after` (default: the example's), by `sender`. */
export function pushPayload(spec: { ref?: string; modified?: string[]; added?: string[]; after?: string; sender?: UserSpec }): Record<string, any> {
  const p = example("push", undefined);
  p.ref = spec.ref ?? `refs/heads/${p.repository.default_branch ?? "main"}`;
  p.commits = [{ ...(p.commits?.[0] ?? {}), added: spec.added ?? [], removed: [], modified: spec.modified ?? [] }];
  if (spec.after !== undefined) p.after = spec.after;
  if (spec.sender) p.sender = user(p.sender, spec.sender);
  p.installation = { id: INSTALLATION_ID, node_id: "I_1" };
  return p;
}

/** A `pull_request.<action>` payload. */
export function pullRequestPayload(
  action: string,
  spec: {
    number?: number;
    body?: string;
    author?: UserSpec;
    headSha?: string;
    merged?: boolean;
    sender?: UserSpec;
    at?: number;
    label?: string;
    /** How many files it changes (GitHub's `changed_files`; the example's 1 by default). */
    changedFiles?: number;
  },
): Record<string, any> {
  const p = example("pull_request", action === "edited" ? "opened" : action);
  if (spec.at !== undefined) {
    p.pull_request.updated_at = isoSeconds(spec.at);
    if (action === "closed") p.pull_request.closed_at = isoSeconds(spec.at);
  }
  if (spec.label !== undefined) p.label = { id: 99, node_id: "L_99", url: "", name: spec.label, color: "ededed", default: false, description: null };
  if (action === "closed") {
    p.pull_request.state = "closed";
    p.pull_request.merged = spec.merged ?? false;
    p.pull_request.merged_at = spec.merged ? p.pull_request.closed_at ?? "2026-12-01T12:00:00Z" : null;
  }
  p.action = action;
  p.number = spec.number ?? 2;
  p.pull_request.number = p.number;
  p.pull_request.body = spec.body ?? "";
  p.pull_request.user = user(p.pull_request.user, spec.author ?? alice);
  p.pull_request.head.sha = spec.headSha ?? "a".repeat(40);
  if (spec.changedFiles !== undefined) p.pull_request.changed_files = spec.changedFiles;
  p.sender = user(p.sender, spec.sender ?? spec.author ?? alice);
  p.installation = { id: INSTALLATION_ID, node_id: "I_1" };
  return p;
}

/** A repository as the installation events list them (id, name, private). */
export interface ListedRepo {
  id: number;
  name: string;
  private?: boolean;
}

const listed = (r: ListedRepo) => ({ id: r.id, node_id: `R_${r.id}`, name: r.name, full_name: `${REPO.owner}/${r.name}`, private: r.private ?? false });

/** An `installation.<action>` payload (created, deleted, suspend, unsuspend) of INSTALLATION_ID, listing `repos` where GitHub does. */
export function installationPayload(action: string, repos: ListedRepo[] = []): Record<string, any> {
  const p = example("installation", action);
  p.installation = { ...p.installation, id: INSTALLATION_ID };
  if ("repositories" in p) p.repositories = repos.map(listed);
  return p;
}

/** An `installation_repositories.<action>` payload (added, removed) of INSTALLATION_ID. */
export function installationReposPayload(action: "added" | "removed", repos: ListedRepo[]): Record<string, any> {
  const p = example("installation_repositories", action);
  p.installation = { ...p.installation, id: INSTALLATION_ID };
  p.repositories_added = action === "added" ? repos.map(listed) : [];
  p.repositories_removed = action === "removed" ? repos.map(listed) : [];
  return p;
}

/** A `repository.<action>` payload of REPO (privatized, publicized, deleted…); `at`: the repository's `updated_at`. */
export function repositoryPayload(action: string, spec: { at?: number } = {}): Record<string, any> {
  // GitHub's examples have no `deleted`: the same repository object, another action.
  const p = example("repository", action === "deleted" ? "edited" : action);
  p.action = action;
  delete p.changes;
  p.repository = { ...p.repository, id: REPO.id, name: REPO.name, full_name: `${REPO.owner}/${REPO.name}` };
  if (spec.at !== undefined) p.repository.updated_at = isoSeconds(spec.at);
  p.installation = { id: INSTALLATION_ID, node_id: "I_1" };
  return p;
}

/** A `check_run.rerequested` payload: "Re-run" on the run `name` of app `appId` at `headSha`, naming `pulls` (the repository's own pull requests). */
export function checkRunRerequestedPayload(spec: { name: string; appId: number; headSha: string; pulls?: number[]; sender?: UserSpec }): Record<string, any> {
  const p = example("check_run", "rerequested");
  p.repository = example("push", undefined).repository;
  p.check_run.name = spec.name;
  p.check_run.app = { ...p.check_run.app, id: spec.appId };
  p.check_run.head_sha = spec.headSha;
  p.check_run.pull_requests = (spec.pulls ?? []).map((number) => ({
    url: `https://api.github.com/repos/${REPO.owner}/${REPO.name}/pulls/${number}`,
    id: 10_000 + number,
    number,
    head: { ref: "work", sha: spec.headSha, repo: { id: REPO.id, url: "", name: REPO.name } },
    base: { ref: "main", sha: "0".repeat(40), repo: { id: REPO.id, url: "", name: REPO.name } },
  }));
  p.sender = user(p.sender, spec.sender ?? alice);
  p.installation = { id: INSTALLATION_ID, node_id: "I_1" };
  return p;
}

/**
 * An `issue_dependencies.<action>` payload, in GitHub's shape (its webhook
 * description: @octokit/openapi-webhooks-types; @octokit/webhooks-examples
 * has no example of it): `blocked` and `blocking` are GitHub's issue JSON
 * (as the fake's REST answers it, summaries after the change), both of REPO.
 * blocked_by_*: sent for the blocked issue, the other repository
 * `blocking_issue_repo`; blocking_*: for the blocking one, `blocked_issue_repo`.
 */
export function issueDependenciesPayload(
  action: "blocked_by_added" | "blocked_by_removed" | "blocking_added" | "blocking_removed",
  spec: { blocked: Record<string, any>; blocking: Record<string, any>; sender?: UserSpec },
): Record<string, any> {
  const base = example("issues", "reopened");
  const repository = base.repository;
  const other = action.startsWith("blocked_by") ? { blocking_issue_repo: repository } : { blocked_issue_repo: repository };
  return {
    action,
    blocked_issue_id: spec.blocked.id,
    blocked_issue: spec.blocked,
    blocking_issue_id: spec.blocking.id,
    blocking_issue: spec.blocking,
    ...other,
    repository,
    sender: user(base.sender, spec.sender ?? maintainer),
    installation: { id: INSTALLATION_ID, node_id: "I_1" },
  };
}

/**
 * A `sub_issues.<action>` payload, in GitHub's shape (as issueDependenciesPayload): `parent` and `sub` GitHub's issue
 * JSON of REPO. sub_issue_*: sent for the parent, the other repository `sub_issue_repo`; parent_issue_*: for the
 * sub-issue, `parent_issue_repo`.
 */
export function subIssuesPayload(
  action: "sub_issue_added" | "sub_issue_removed" | "parent_issue_added" | "parent_issue_removed",
  spec: { parent: Record<string, any>; sub: Record<string, any>; sender?: UserSpec },
): Record<string, any> {
  const base = example("issues", "reopened");
  const repository = base.repository;
  const other = action.startsWith("sub_issue") ? { sub_issue_repo: repository } : { parent_issue_repo: repository };
  return {
    action,
    parent_issue_id: spec.parent.id,
    parent_issue: spec.parent,
    sub_issue_id: spec.sub.id,
    sub_issue: spec.sub,
    ...other,
    repository,
    sender: user(base.sender, spec.sender ?? maintainer),
    installation: { id: INSTALLATION_ID, node_id: "I_1" },
  };
}
