/**
 * Issues (list, read, update, the issues each blocks), their assignees and their comments. Issues
 * spring into existence on first use (state.ts, issueOf). What GraphQL's
 * assignee and comment mutations share with these routes is exported here.
 */
import type { CommentRecord, IssueRecord, RepoRecord } from "./records.js";
import { invalid, notFound, type Reply } from "./replies.js";
import { bodyField, isRecord, sinceParam, stringList } from "./request-fields.js";
import { R, type Ctx, type RouteTable } from "./route-table.js";
import type { RouteDeps } from "./routes.js";
import type { FakeState } from "./state.js";
import { commentBodyProblem, labelNameList } from "./validation.js";

export function issueRoutes(t: RouteTable, d: RouteDeps): void {
  const { data, shapes } = d;
  t.add("GET", `${R}/issues`, "read", (ctx) => data.issuesRefusal(ctx) ?? listIssues(d, ctx));
  // Literal `comments` routes come before `:n` ones; `:n` only matches digits anyway.
  t.add("GET", `${R}/issues/comments`, "read", (ctx) => {
    const repo = data.repoOf(ctx);
    const since = sinceParam(ctx);
    const all = [...repo.comments.values()].filter((c) => c.updatedAt >= since);
    return shapes.list(ctx, all, (c) => shapes.commentJson(repo, c));
  });
  t.add("GET", `${R}/issues/comments/:id`, "read", (ctx) => {
    const repo = data.repoOf(ctx);
    const comment = repo.comments.get(Number(ctx.params.id));
    return comment ? { status: 200, json: shapes.commentJson(repo, comment) } : notFound();
  });
  t.add("PATCH", `${R}/issues/comments/:id`, "write", (ctx) => {
    const repo = data.repoOf(ctx);
    const comment = repo.comments.get(Number(ctx.params.id));
    if (!comment) return notFound();
    return editComment(data, comment, bodyField(ctx.body, "body")) ?? { status: 200, json: shapes.commentJson(repo, comment) };
  });
  t.add("DELETE", `${R}/issues/comments/:id`, "write", (ctx) => {
    const repo = data.repoOf(ctx);
    const comment = repo.comments.get(Number(ctx.params.id));
    if (!comment) return notFound();
    repo.comments.delete(comment.id);
    const issue = repo.issues.get(comment.issue);
    if (issue) issue.commentCount--;
    return { status: 204 };
  });
  t.add("GET", `${R}/issues/:n`, "read", (ctx) => {
    const refused = data.issuesRefusal(ctx);
    if (refused) return refused;
    const repo = data.repoOf(ctx);
    return { status: 200, json: shapes.issueJson(repo, data.issueOf(repo, Number(ctx.params.n))) };
  });
  t.add("PATCH", `${R}/issues/:n`, "write", (ctx) => updateIssue(d, ctx));
  // The issues this one blocks (GitHub's issue dependencies), in any repository.
  t.add("GET", `${R}/issues/:n/dependencies/blocking`, "read", (ctx) => {
    const refused = data.issuesRefusal(ctx);
    if (refused) return refused;
    const repo = data.repoOf(ctx);
    const blocked = (repo.issues.get(Number(ctx.params.n))?.blocking ?? []).map((k) => data.issueAt(k)).filter((x) => x !== undefined);
    return shapes.list(ctx, blocked, (x) => shapes.issueJson(x.repo, x.issue));
  });
}

export function assigneeRoutes(t: RouteTable, { data, shapes }: RouteDeps): void {
  t.add("POST", `${R}/issues/:n/assignees`, "content", (ctx) => {
    const logins = stringList(bodyField(ctx.body, "assignees"));
    if (logins === null) return invalid([{ resource: "Issue", code: "missing_field", field: "assignees" }]);
    const repo = data.repoOf(ctx);
    const issue = data.issueOf(repo, Number(ctx.params.n));
    addAssignees(data, issue, logins);
    return { status: 201, json: shapes.issueJson(repo, issue) };
  });
  t.add("DELETE", `${R}/issues/:n/assignees`, "write", (ctx) => {
    const logins = stringList(bodyField(ctx.body, "assignees"));
    if (logins === null) return invalid([{ resource: "Issue", code: "missing_field", field: "assignees" }]);
    const repo = data.repoOf(ctx);
    const issue = data.issueOf(repo, Number(ctx.params.n));
    removeAssignees(data, issue, logins);
    return { status: 200, json: shapes.issueJson(repo, issue) };
  });
}

export function commentRoutes(t: RouteTable, d: RouteDeps): void {
  const { data, shapes } = d;
  t.add("GET", `${R}/issues/:n/comments`, "read", (ctx) => {
    const repo = data.repoOf(ctx);
    const n = Number(ctx.params.n);
    const since = sinceParam(ctx);
    const all = [...repo.comments.values()].filter((c) => c.issue === n && c.updatedAt >= since);
    return shapes.list(ctx, all, (c) => shapes.commentJson(repo, c));
  });
  t.add("POST", `${R}/issues/:n/comments`, "content", (ctx) => {
    const repo = data.repoOf(ctx);
    const comment = postAppComment(d, repo, Number(ctx.params.n), bodyField(ctx.body, "body"));
    return "status" in comment ? comment : { status: 201, json: shapes.commentJson(repo, comment) };
  });
}

/** Assigns those with access (GitHub drops the others silently), after the current assignees. */
export function addAssignees(data: FakeState, issue: IssueRecord, logins: string[]): void {
  issue.assignees = data.assignable(logins, issue.assignees);
  data.touch(issue);
}

/** Unassigns the logins (case-insensitively); one not assigned is no error. */
export function removeAssignees(data: FakeState, issue: IssueRecord, logins: string[]): void {
  const drop = new Set(logins.map((l) => l.toLowerCase()));
  issue.assignees = issue.assignees.filter((l) => !drop.has(l.toLowerCase()));
  data.touch(issue);
}

/** A comment by the app's bot (so it carries performed_via_github_app), after GitHub's checks on the body; else their 422. */
export function postAppComment({ data, app }: RouteDeps, repo: RepoRecord, issue: number, body: unknown): CommentRecord | Reply {
  const problem = commentBodyProblem(body);
  if (problem) return problem;
  data.posted?.push(`${repo.owner}/${repo.name}#${issue}`);
  return data.createComment(repo, issue, body as string, app.botLogin);
}

/** Replaces a comment's body after GitHub's checks; their 422 when it fails them, else null. */
export function editComment(data: FakeState, comment: CommentRecord, body: unknown): Reply | null {
  const problem = commentBodyProblem(body);
  if (problem) return problem;
  comment.body = body as string;
  comment.updatedAt = data.now();
  return null;
}

function listIssues({ data, shapes }: RouteDeps, ctx: Ctx): Reply {
  const repo = data.repoOf(ctx);
  const state = ctx.query.get("state") ?? "open";
  const wanted = (ctx.query.get("labels") ?? "").split(",").map((s) => s.trim().toLowerCase()).filter((s) => s !== "");
  const assignee = ctx.query.get("assignee")?.toLowerCase();
  const since = sinceParam(ctx);
  const issues = [...repo.issues.values()]
    .filter((i) => {
      if (state !== "all" && i.state !== state) return false;
      if (i.updatedAt < since) return false;
      // GitHub's `assignee`: `*` any assignee, `none` none, else that login.
      if (assignee === "*" && i.assignees.length === 0) return false;
      if (assignee === "none" && i.assignees.length > 0) return false;
      if (assignee !== undefined && assignee !== "*" && assignee !== "none" && !i.assignees.some((a) => a.toLowerCase() === assignee)) return false;
      const names = i.labelIds.map((id) => data.labelById(repo, id).name.toLowerCase());
      return wanted.every((w) => names.includes(w));
    })
    // GitHub's default: newest first; `direction=asc` oldest first (numbers follow creation).
    .sort((a, b) => (ctx.query.get("direction") === "asc" ? a.number - b.number : b.number - a.number));
  return shapes.list(ctx, issues, (i) => shapes.issueJson(repo, i));
}

function updateIssue({ data, shapes }: RouteDeps, ctx: Ctx): Reply {
  if (!isRecord(ctx.body)) return invalid([{ resource: "Issue", code: "invalid", field: "body" }]);
  const b = ctx.body;
  const repo = data.repoOf(ctx);
  const issue = data.issueOf(repo, Number(ctx.params.n));
  if (b.state !== undefined && b.state !== "open" && b.state !== "closed") {
    return invalid([{ resource: "Issue", code: "invalid", field: "state" }]);
  }
  let labelIds: number[] | undefined;
  if (b.labels !== undefined) {
    const names = labelNameList({ labels: b.labels });
    if (names === null) return invalid([{ resource: "Issue", code: "invalid", field: "labels" }]);
    const ids = data.resolveLabels(repo, names);
    if (!Array.isArray(ids)) return ids;
    labelIds = ids;
  }
  if (labelIds !== undefined) issue.labelIds = labelIds;
  if (typeof b.title === "string") issue.title = b.title;
  if (typeof b.body === "string") issue.body = b.body;
  else if (b.body === null) issue.body = "";
  if (b.assignees !== undefined) {
    const logins = stringList(b.assignees);
    if (logins !== null) issue.assignees = data.assignable(logins, []);
  } else if (b.assignee !== undefined) {
    issue.assignees = typeof b.assignee === "string" ? data.assignable([b.assignee], []) : [];
  }
  if (b.state === "open" || b.state === "closed") {
    data.setIssueState(issue, b.state, typeof b.state_reason === "string" ? b.state_reason : null);
  }
  data.touch(issue);
  return { status: 200, json: shapes.issueJson(repo, issue) };
}
