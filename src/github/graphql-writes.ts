/**
 * What one effect does to one issue, sent to GitHub as one GraphQL mutation
 * document (GITHUB_WRITES=graphql, the default): several aliased mutations
 * that GitHub runs in order, the reply (`addComment`) last. GitHub runs every
 * field even when an earlier one fails, so the answer is read alias by alias.
 *
 * GraphQL names everything by node id: the issue's, the labels', the users'.
 * `lookupIds` asks for those the app does not know yet, in one query; the
 * app keeps them (reflector.ts), so that in the steady state an effect is one
 * request. A label the repository lacks is made by `createLabel` first, in a
 * document of its own: a document cannot use an id it creates.
 */

/** One mutation of a document. Ids are GitHub's node ids. */
export type Mutation =
  | { op: "removeLabels"; labelableId: string; labelIds: string[] }
  | { op: "deleteLabel"; id: string }
  | { op: "addLabels"; labelableId: string; labelIds: string[] }
  | { op: "removeAssignees"; assignableId: string; assigneeIds: string[] }
  | { op: "addAssignees"; assignableId: string; assigneeIds: string[] }
  | { op: "addComment"; subjectId: string; body: string }
  | { op: "createLabel"; repositoryId: string; name: string; color: string; description: string };

/** An error of GitHub's GraphQL answer: its `type` (NOT_FOUND, UNPROCESSABLE, FORBIDDEN, RATE_LIMITED, ...) and message. */
export interface GraphqlFailure {
  type?: string;
  message: string;
}

/** What GitHub answered for one mutation of the document, by its place in it. */
export type MutationResult =
  | { ok: true; labelId?: string; assignees?: string[] }
  | { ok: false; error: GraphqlFailure };

/** GitHub's mutation, its input type, and what the app reads of its payload. */
const MUTATIONS: Record<Mutation["op"], { field: string; input: string; select: string }> = {
  removeLabels: { field: "removeLabelsFromLabelable", input: "RemoveLabelsFromLabelableInput", select: "clientMutationId" },
  deleteLabel: { field: "deleteLabel", input: "DeleteLabelInput", select: "clientMutationId" },
  addLabels: { field: "addLabelsToLabelable", input: "AddLabelsToLabelableInput", select: "clientMutationId" },
  removeAssignees: { field: "removeAssigneesFromAssignable", input: "RemoveAssigneesFromAssignableInput", select: "clientMutationId" },
  // What GitHub assigned: it leaves out, without an error, a login it may not assign.
  addAssignees: {
    field: "addAssigneesToAssignable",
    input: "AddAssigneesToAssignableInput",
    select: "assignable { ... on Issue { assignees(first: 100) { nodes { login } } } }",
  },
  addComment: { field: "addComment", input: "AddCommentInput", select: "clientMutationId" },
  createLabel: { field: "createLabel", input: "CreateLabelInput", select: "label { id }" },
};

/** The document and its variables: each mutation's input is a variable, so no text of the app's or a user's is spliced into it. */
export function mutationDocument(mutations: readonly Mutation[]): { query: string; variables: Record<string, unknown> } {
  const variables: Record<string, unknown> = {};
  const params: string[] = [];
  const fields: string[] = [];
  mutations.forEach(({ op, ...input }, i) => {
    const m = MUTATIONS[op];
    variables[`m${i}`] = input;
    params.push(`$m${i}: ${m.input}!`);
    fields.push(`  m${i}: ${m.field}(input: $m${i}) { ${m.select} }`);
  });
  return { query: `mutation IssueLeases(${params.join(", ")}) {\n${fields.join("\n")}\n}`, variables };
}

/** GitHub's GraphQL answer: `data` (null when nothing ran) and `errors`, each with the `path` of the field it concerns. */
export interface GraphqlAnswer {
  data?: Record<string, unknown> | null;
  errors?: Array<{ type?: string; message?: string; path?: Array<string | number> }>;
}

/**
 * The answer read alias by alias. An error without a path, or an answer
 * without data, concerns the whole document: it is thrown (nothing, or not
 * everything, may have run; see GraphqlRefused).
 */
export function readMutations(mutations: readonly Mutation[], answer: GraphqlAnswer): MutationResult[] {
  const errors = answer.errors ?? [];
  const whole = errors.filter((e) => !Array.isArray(e.path) || e.path.length === 0);
  if (whole.length > 0 || !answer.data) throw new GraphqlRefused(errors.length > 0 ? errors.map(failure) : [{ message: "GitHub's answer had no data" }]);
  return mutations.map((m, i) => {
    const alias = `m${i}`;
    const error = errors.find((e) => e.path?.[0] === alias);
    const payload = answer.data?.[alias] as Record<string, unknown> | null | undefined;
    if (error || payload == null) return { ok: false, error: { type: error?.type, message: error?.message ?? `${alias}: no payload` } };
    if (m.op === "createLabel") return { ok: true, labelId: String((payload.label as { id?: unknown } | null)?.id ?? "") };
    if (m.op === "addAssignees") {
      const nodes = ((payload.assignable as { assignees?: { nodes?: Array<{ login?: string } | null> } } | null)?.assignees?.nodes ?? []);
      return { ok: true, assignees: nodes.flatMap((n) => (n?.login ? [n.login] : [])) };
    }
    return { ok: true };
  });
}

const failure = (e: { type?: string; message?: string }): GraphqlFailure => ({ type: e.type, message: e.message ?? "" });

/**
 * A GraphQL document GitHub refused as a whole or in part, told to the
 * outbox as an HTTP error would be: `errors` for after-failure.ts (a
 * RATE_LIMITED pauses the installation), and a status of 404 when `gone`:
 * GitHub does not find the repository or the issue (the effect is dropped).
 */
export class GraphqlRefused extends Error {
  readonly status: number | undefined;
  constructor(readonly errors: GraphqlFailure[], gone = false) {
    super(`GitHub refused a GraphQL document: ${errors.map((e) => `${e.type ?? "ERROR"}: ${e.message}`).join("; ")}`.slice(0, 500));
    this.status = gone ? 404 : undefined;
  }
}

/** What the app asks GitHub's ids of: the repository, one issue, label names and logins. */
export interface IdQuestion {
  owner: string;
  repo: string;
  issue?: number;
  labels: string[];
  logins: string[];
}

/** What GitHub said: null for a label the repository lacks, or a login that is no user (a bot, a deleted account). */
export interface IdAnswer {
  repositoryId: string;
  issueId: string | null;
  labels: Map<string, string | null>;
  users: Map<string, string | null>;
}

/** One query for every id asked: each label and login as a variable of its own. */
export function idDocument(q: IdQuestion): { query: string; variables: Record<string, unknown> } {
  const variables: Record<string, unknown> = { owner: q.owner, name: q.repo };
  const params = ["$owner: String!", "$name: String!"];
  const inRepo = ["id"];
  if (q.issue !== undefined) {
    variables.number = q.issue;
    params.push("$number: Int!");
    inRepo.push("issue(number: $number) { id }");
  }
  q.labels.forEach((name, i) => {
    variables[`l${i}`] = name;
    params.push(`$l${i}: String!`);
    inRepo.push(`l${i}: label(name: $l${i}) { id }`);
  });
  const users = q.logins.map((login, i) => {
    variables[`u${i}`] = login;
    params.push(`$u${i}: String!`);
    return `  u${i}: user(login: $u${i}) { id }`;
  });
  return { query: `query IssueLeasesIds(${params.join(", ")}) {\n  repository(owner: $owner, name: $name) { ${inRepo.join(" ")} }\n${users.join("\n")}\n}`, variables };
}

/**
 * The ids of the answer. A user GitHub does not find is null (GitHub answers
 * NOT_FOUND under its alias); a repository or an issue it does not find is
 * thrown as a 404 (the effect's issue is gone).
 */
export function readIds(q: IdQuestion, answer: GraphqlAnswer): IdAnswer {
  const errors = (answer.errors ?? []).filter((e) => !(typeof e.path?.[0] === "string" && /^u\d+$/.test(e.path[0]) && e.type === "NOT_FOUND"));
  const repository = answer.data?.repository as Record<string, { id?: string } | string | null> | null | undefined;
  if (errors.length > 0 || !repository || typeof repository.id !== "string") {
    const gone = errors.length === 0 || errors.every((e) => e.type === "NOT_FOUND" && e.path?.[0] === "repository");
    throw new GraphqlRefused(errors.length > 0 ? errors.map(failure) : [{ type: "NOT_FOUND", message: `no repository ${q.owner}/${q.repo}` }], gone);
  }
  const idOf = (v: unknown) => ((v as { id?: unknown } | null)?.id ? String((v as { id: unknown }).id) : null);
  const issueId = q.issue === undefined ? null : idOf(repository.issue);
  if (q.issue !== undefined && issueId === null) throw new GraphqlRefused([{ type: "NOT_FOUND", message: `no issue #${q.issue}` }], true);
  return {
    repositoryId: repository.id,
    issueId,
    labels: new Map(q.labels.map((name, i) => [name, idOf(repository[`l${i}`])])),
    users: new Map(q.logins.map((login, i) => [login, idOf(answer.data?.[`u${i}`])])),
  };
}
