/**
 * GitHub's GraphQL objects for the fake's records, and the node ids that
 * find them. The ids are the `node_id`s REST JSON already carries
 * (json-shapes.ts: `I_`, `LA_`, `U_`, `BOT_`, `R_`, `IC_`), so an app that
 * learns ids from REST answers and webhooks can send them to GraphQL.
 *
 * Objects are plain values that graphql-js's default resolution reads (a
 * function field is called with the field's arguments), with `__typename`
 * where an interface or union returns them. A field the fake does not model
 * is left out, and graphql-mutations.ts fails it loudly rather than answer
 * null for it.
 */
import { loginsById, userId } from "./json-shapes.js";
import type { CommentRecord, IssueRecord, LabelRecord, RepoRecord } from "./records.js";
import type { RouteDeps } from "./routes.js";
import type { FakeState } from "./state.js";

/** An error as GitHub's GraphQL reports it, with its `type` (NOT_FOUND, UNPROCESSABLE, ...). */
export class GraphqlError extends Error {
  constructor(readonly type: string, message: string) {
    super(message);
  }
}

/** GitHub's answer to an id it cannot resolve, whatever kind of node the input wanted. */
export function unresolvable(id: string): GraphqlError {
  return new GraphqlError("NOT_FOUND", `Could not resolve to a node with the global id of '${id}'.`);
}

/** What issues' numbers are packed with in their REST id (json-shapes.ts, issueJson). */
const ISSUES_PER_REPO = 1_000_000;

// --- node ids -------------------------------------------------------------------

/** The number of a node id with this prefix (`LA_12` -> 12), or null. */
function idNumber(id: string, prefix: string): number | null {
  const match = /^([A-Z]+)_(\d+)$/.exec(id);
  return match && match[1] === prefix ? Number(match[2]) : null;
}

export function repoById({ data }: RouteDeps, id: string): RepoRecord {
  const n = idNumber(id, "R");
  const repo = n === null ? undefined : [...data.repos.values()].find((r) => r.id === n);
  if (!repo) throw unresolvable(id);
  return repo;
}

/** An issue of a repository the fake holds; like REST, an issue springs into existence on first use. */
export function issueById(d: RouteDeps, id: string): { repo: RepoRecord; issue: IssueRecord } {
  const n = idNumber(id, "I");
  const number = n === null ? 0 : n % ISSUES_PER_REPO;
  const repo = n === null ? undefined : [...d.data.repos.values()].find((r) => r.id === Math.floor(n / ISSUES_PER_REPO));
  if (!repo || number < 1) throw unresolvable(id);
  return { repo, issue: d.data.issueOf(repo, number) };
}

export function labelById({ data }: RouteDeps, id: string): { repo: RepoRecord; label: LabelRecord } {
  const n = idNumber(id, "LA");
  for (const repo of n === null ? [] : data.repos.values()) {
    const label = repo.labels.get(n!);
    if (label) return { repo, label };
  }
  throw unresolvable(id);
}

export function commentById({ data }: RouteDeps, id: string): { repo: RepoRecord; comment: CommentRecord } {
  const n = idNumber(id, "IC");
  for (const repo of n === null ? [] : data.repos.values()) {
    const comment = repo.comments.get(n!);
    if (comment) return { repo, comment };
  }
  throw unresolvable(id);
}

/**
 * The login of a user's (`U_`) or the app's bot's (`BOT_`) node id. GitHub knows every account; the fake knows the
 * logins its state holds (see knownLogins), and a user's id is a hash of the login (json-shapes.ts, userId).
 */
export function loginById({ data, app }: RouteDeps, id: string): string {
  if (idNumber(id, "BOT") === 1000 + app.appId) return app.botLogin;
  const n = idNumber(id, "U");
  if (n !== null) for (const login of knownLogins(data)) if (userId(login) === n) return login;
  const named = n === null ? undefined : loginsById.get(n);
  if (named !== undefined) return named;
  throw unresolvable(id);
}

/** Whether the fake's state holds `login` (GitHub knows every account; the fake those it has seen). */
export function knownLogin(data: FakeState, login: string): boolean {
  for (const known of knownLogins(data)) if (known.toLowerCase() === login.toLowerCase()) return true;
  return false;
}

/** Every login the state holds, seeded or written: a user springs into existence once mentioned anywhere. */
function* knownLogins(data: FakeState): Iterable<string> {
  yield "octocat";
  for (const repo of data.repos.values()) {
    yield repo.owner;
    for (const issue of repo.issues.values()) {
      yield issue.user;
      yield* issue.assignees;
    }
    for (const comment of repo.comments.values()) yield comment.user;
    yield* repo.permissions.keys();
  }
  for (const members of data.orgMembers.values()) yield* members;
  yield* data.refusedAssignees;
  yield* data.lookedUpUsers;
  for (const caller of data.apiTokens.values()) yield caller.login;
}

// --- objects --------------------------------------------------------------------

/** A connection's arguments; the fake pages by `first` and `last`, not by cursors. */
interface PageArgs { first?: number | null; last?: number | null; after?: string | null; before?: string | null }

/** GitHub's connection over `items`: `nodes`, `totalCount` and `pageInfo`'s booleans (cursors are not modelled). */
function connection<T>(name: string, { first, last, after, before }: PageArgs, items: T[]): Record<string, unknown> {
  if (after != null || before != null) throw new Error(`fake-github: cursors (\`after\`, \`before\`) on the ${name} connection are not modelled`);
  if (first == null && last == null) {
    throw new GraphqlError("MISSING_PAGINATION_BOUNDARIES", `You must provide a \`first\` or \`last\` value to properly paginate the \`${name}\` connection.`);
  }
  for (const [arg, n] of [["first", first], ["last", last]] as const) {
    if (n != null && n > 100) {
      throw new GraphqlError("EXCESSIVE_PAGINATION", `Requesting ${n} records on the \`${name}\` connection exceeds the \`${arg}\` limit of 100 records.`);
    }
  }
  const end = first == null ? items.length : Math.min(items.length, Math.max(0, first));
  const start = last == null ? 0 : Math.max(0, end - Math.max(0, last));
  return { nodes: items.slice(start, end), totalCount: items.length, pageInfo: { hasNextPage: end < items.length, hasPreviousPage: start > 0 } };
}

/** An issue's labels in GitHub's order for `orderBy` (by default, oldest label first). */
function orderedLabels(labels: LabelRecord[], orderBy: { field?: string; direction?: string } | null | undefined): LabelRecord[] {
  const sorted = [...labels].sort(orderBy?.field === "NAME" ? (a, b) => a.name.localeCompare(b.name) : (a, b) => a.id - b.id);
  return orderBy?.direction === "DESC" ? sorted.reverse() : sorted;
}

export function repositoryObject(d: RouteDeps, repo: RepoRecord): Record<string, unknown> {
  return {
    __typename: "Repository", id: `R_${repo.id}`, databaseId: repo.id, name: repo.name,
    nameWithOwner: `${repo.owner}/${repo.name}`, url: d.shapes.htmlRepoUrl(repo),
  };
}

/** An issue; its labels and assignees are read when the field is resolved, so each payload shows its own moment. */
export function issueObject(d: RouteDeps, repo: RepoRecord, issue: IssueRecord): Record<string, unknown> {
  const json = d.shapes.issueJson(repo, issue);
  return {
    __typename: "Issue", id: json.node_id, databaseId: json.id, number: issue.number, title: issue.title, body: issue.body,
    state: issue.state.toUpperCase(), closed: issue.state === "closed", locked: issue.locked, url: json.html_url,
    repository: repositoryObject(d, repo),
    labels: ({ orderBy, ...page }: PageArgs & { orderBy?: { field?: string; direction?: string } | null }) => {
      const labels = orderedLabels(issue.labelIds.map((id) => d.data.labelById(repo, id)), orderBy);
      return connection("labels", page, labels.map((label) => labelObject(d, repo, label)));
    },
    assignees: (args: PageArgs) => connection("assignees", args, issue.assignees.map((login) => userObject(d, login))),
  };
}

export function labelObject(d: RouteDeps, repo: RepoRecord, label: LabelRecord): Record<string, unknown> {
  return {
    __typename: "Label", id: `LA_${label.id}`, name: label.name, color: label.color, description: label.description,
    isDefault: false, url: `${d.shapes.htmlRepoUrl(repo)}/labels/${encodeURIComponent(label.name)}`,
  };
}

/** A user, or the app's bot (GitHub's `Bot`), as an assignee or a comment's author. */
export function userObject(d: RouteDeps, login: string): Record<string, unknown> {
  const json = d.shapes.userJson(login);
  return { __typename: json.type, id: json.node_id, databaseId: json.id, login: json.login, url: json.html_url };
}

export function commentObject(d: RouteDeps, repo: RepoRecord, comment: CommentRecord): Record<string, unknown> {
  const json = d.shapes.commentJson(repo, comment);
  return {
    __typename: "IssueComment", id: json.node_id, databaseId: json.id, body: comment.body, url: json.html_url,
    createdAt: json.created_at, updatedAt: json.updated_at, author: userObject(d, comment.user),
    issue: issueObject(d, repo, d.data.issueOf(repo, comment.issue)),
  };
}
