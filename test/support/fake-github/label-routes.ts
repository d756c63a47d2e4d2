/**
 * Labels: a repository's (create, rename, recolour, delete) and an issue's
 * (add, replace, remove). Names compare case-insensitively, and a missing
 * label is created when an issue gets it (state.ts, resolveLabels). What
 * GraphQL's label mutations share with these routes is exported here.
 */
import type { IssueRecord, LabelRecord, RepoRecord } from "./records.js";
import { invalid, notFound, type Reply } from "./replies.js";
import { bodyField } from "./request-fields.js";
import { R, type Ctx, type RouteTable } from "./route-table.js";
import type { RouteDeps } from "./routes.js";
import type { FakeState } from "./state.js";
import { labelNameList, labelNameProblem, normalizeColor } from "./validation.js";

export function labelRoutes(t: RouteTable, d: RouteDeps): void {
  const { data, shapes } = d;
  t.add("GET", `${R}/labels`, "read", (ctx) => {
    const repo = data.repoOf(ctx);
    return shapes.list(ctx, [...repo.labels.values()], (l) => shapes.labelJson(repo, l));
  });
  t.add("GET", `${R}/labels/:name`, "read", (ctx) => {
    const repo = data.repoOf(ctx);
    const label = data.findLabel(repo, ctx.params.name!);
    return label ? { status: 200, json: shapes.labelJson(repo, label) } : notFound();
  });
  t.add("POST", `${R}/labels`, "content", (ctx) => createRepoLabel(d, ctx));
  t.add("PATCH", `${R}/labels/:name`, "write", (ctx) => updateRepoLabel(d, ctx));
  t.add("DELETE", `${R}/labels/:name`, "write", (ctx) => {
    const repo = data.repoOf(ctx);
    const label = data.findLabel(repo, ctx.params.name!);
    if (!label) return notFound();
    deleteRepoLabel(repo, label);
    return { status: 204 };
  });
}

export function issueLabelRoutes(t: RouteTable, d: RouteDeps): void {
  const { data, shapes } = d;
  t.add("GET", `${R}/issues/:n/labels`, "read", (ctx) => {
    const repo = data.repoOf(ctx);
    const issue = data.issueOf(repo, Number(ctx.params.n));
    return shapes.list(ctx, issue.labelIds, (id) => shapes.labelJson(repo, data.labelById(repo, id)));
  });
  t.add("POST", `${R}/issues/:n/labels`, "content", (ctx) => setIssueLabels(d, ctx, "add"));
  t.add("PUT", `${R}/issues/:n/labels`, "write", (ctx) => setIssueLabels(d, ctx, "replace"));
  t.add("DELETE", `${R}/issues/:n/labels`, "write", (ctx) => {
    const repo = data.repoOf(ctx);
    const issue = data.issueOf(repo, Number(ctx.params.n));
    issue.labelIds = [];
    data.touch(issue);
    return { status: 204 };
  });
  t.add("DELETE", `${R}/issues/:n/labels/:name`, "write", (ctx) => {
    const repo = data.repoOf(ctx);
    const issue = data.issueOf(repo, Number(ctx.params.n));
    const label = data.findLabel(repo, ctx.params.name!);
    if (!label || !issue.labelIds.includes(label.id)) return notFound("Label does not exist");
    removeIssueLabels(data, issue, [label.id]);
    return { status: 200, json: shapes.issueLabelsJson(repo, issue) };
  });
}

/** A new repository label after GitHub's checks (name, colour, a name not taken); else the 422 REST answers. */
export function createCheckedLabel(data: FakeState, repo: RepoRecord, name: string, color: unknown, description: unknown): LabelRecord | Reply {
  const problem = labelNameProblem(name);
  if (problem) return problem;
  const hex = normalizeColor(color);
  if (hex === null) return invalid([{ resource: "Label", code: "invalid", field: "color" }]);
  if (data.findLabel(repo, name)) return invalid([{ resource: "Label", code: "already_exists", field: "name" }]);
  return data.createLabel(repo, name, hex, typeof description === "string" ? description : null);
}

/** Deletes a repository label, which takes it off every issue that has it. */
export function deleteRepoLabel(repo: RepoRecord, label: LabelRecord): void {
  repo.labels.delete(label.id);
  repo.labelIndex.delete(label.name.toLowerCase());
  for (const issue of repo.issues.values()) {
    const at = issue.labelIds.indexOf(label.id);
    if (at !== -1) issue.labelIds.splice(at, 1);
  }
}

/** Adds the labels the issue lacks, after those it has. */
export function addIssueLabels(data: FakeState, issue: IssueRecord, ids: number[]): void {
  issue.labelIds = [...issue.labelIds, ...ids.filter((id, i) => !issue.labelIds.includes(id) && ids.indexOf(id) === i)];
  data.touch(issue);
}

/** Takes the labels off the issue; one it lacks is no error. */
export function removeIssueLabels(data: FakeState, issue: IssueRecord, ids: number[]): void {
  issue.labelIds = issue.labelIds.filter((id) => !ids.includes(id));
  data.touch(issue);
}

function createRepoLabel({ data, shapes }: RouteDeps, ctx: Ctx): Reply {
  const repo = data.repoOf(ctx);
  const name = bodyField(ctx.body, "name");
  if (typeof name !== "string") return invalid([{ resource: "Label", code: "missing_field", field: "name" }]);
  const label = createCheckedLabel(data, repo, name, bodyField(ctx.body, "color") ?? "ededed", bodyField(ctx.body, "description"));
  return "status" in label ? label : { status: 201, json: shapes.labelJson(repo, label) };
}

function updateRepoLabel({ data, shapes }: RouteDeps, ctx: Ctx): Reply {
  const repo = data.repoOf(ctx);
  const label = data.findLabel(repo, ctx.params.name!);
  if (!label) return notFound();
  const newName = bodyField(ctx.body, "new_name");
  const color = bodyField(ctx.body, "color");
  const description = bodyField(ctx.body, "description");
  if (typeof newName === "string") {
    const problem = labelNameProblem(newName);
    if (problem) return problem;
    const clash = data.findLabel(repo, newName);
    if (clash && clash.id !== label.id) return invalid([{ resource: "Label", code: "already_exists", field: "name" }]);
  }
  const newColor = color === undefined ? label.color : normalizeColor(color);
  if (newColor === null) return invalid([{ resource: "Label", code: "invalid", field: "color" }]);
  if (typeof newName === "string") {
    repo.labelIndex.delete(label.name.toLowerCase());
    label.name = newName;
    repo.labelIndex.set(newName.toLowerCase(), label.id);
  }
  label.color = newColor;
  if (description !== undefined) label.description = typeof description === "string" ? description : null;
  return { status: 200, json: shapes.labelJson(repo, label) };
}

function setIssueLabels({ data, shapes }: RouteDeps, ctx: Ctx, mode: "add" | "replace"): Reply {
  const names = labelNameList(ctx.body);
  if (names === null) return invalid([{ resource: "Label", code: "missing_field", field: "labels" }]);
  const repo = data.repoOf(ctx);
  const issue = data.issueOf(repo, Number(ctx.params.n));
  const ids = data.resolveLabels(repo, names);
  if (!Array.isArray(ids)) return ids;
  if (mode === "add") {
    addIssueLabels(data, issue, ids);
  } else {
    issue.labelIds = ids;
    data.touch(issue);
  }
  return { status: 200, json: shapes.issueLabelsJson(repo, issue) };
}
