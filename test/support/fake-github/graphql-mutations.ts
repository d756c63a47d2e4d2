/**
 * GitHub's GraphQL mutations on issues, labels, assignees and comments: a
 * document of aliased mutations run by graphql-js against GitHub's schema
 * (graphql-schema.ts), in order, on the state the REST routes change and
 * with their code (label-routes.ts, issue-routes.ts).
 *
 * graphql-js gives what GitHub does: aliases, variables, mutation fields run
 * one after another, each payload resolved before the next mutation runs,
 * and a mutation that fails answers null under its alias with an error
 * whose path is `[alias]`, while the others still run. Errors carry GitHub's
 * top-level `type`.
 */
import { execute, type DocumentNode, type ExecutionResult, type GraphQLError, type GraphQLFieldResolver } from "graphql";
import { commentById, commentObject, issueById, issueObject, labelById, labelObject, loginById, repoById, GraphqlError } from "./graphql-nodes.js";
import { githubSchema } from "./graphql-schema.js";
import { addAssignees, editComment, postAppComment, removeAssignees } from "./issue-routes.js";
import { addIssueLabels, createCheckedLabel, deleteRepoLabel, removeIssueLabels } from "./label-routes.js";
import type { RepoRecord } from "./records.js";
import type { Reply } from "./replies.js";
import { bodyField, isRecord } from "./request-fields.js";
import type { RouteDeps } from "./routes.js";

/** What every mutation's input may carry, and its payload echoes. */
interface Input { clientMutationId?: string | null }
interface LabelsInput extends Input { labelableId: string; labelIds: string[] }
interface AssigneesInput extends Input { assignableId: string; assigneeIds: string[] }

/** Runs a mutation document (already checked against the schema) and answers as GitHub does: 200, `data` and any `errors`. */
export function runMutations(d: RouteDeps, document: DocumentNode, body: unknown): Reply {
  const variables = bodyField(body, "variables");
  const operationName = bodyField(body, "operationName");
  const result = execute({
    schema: githubSchema(), document, rootValue: mutationRoot(d), fieldResolver: modelledField,
    variableValues: isRecord(variables) ? variables : undefined,
    operationName: typeof operationName === "string" ? operationName : undefined,
  });
  if ("then" in result) throw new Error("fake-github: a GraphQL resolver went asynchronous");
  return reply(result);
}

function reply({ data, errors }: ExecutionResult): Reply {
  const githubErrors = errors?.map(githubError);
  // No data: the request itself was refused (a variable missing or of the wrong type), before anything ran.
  if (data === undefined) return { status: 200, json: { errors: githubErrors }, invalid: true };
  return { status: 200, json: githubErrors ? { data, errors: githubErrors } : { data } };
}

/** GitHub's error: `type` at the top level; an error of the fake's own (a field it lacks, a bug) says fake-github. */
export function githubError(error: GraphQLError): Record<string, unknown> {
  const original = error.originalError;
  const type = original instanceof GraphqlError ? original.type : undefined;
  const ours = original !== undefined && type === undefined && !error.message.startsWith("fake-github");
  return {
    ...(type === undefined ? {} : { type }),
    ...(error.path === undefined ? {} : { path: error.path }),
    ...(error.locations === undefined ? {} : { locations: error.locations }),
    message: ours ? `fake-github: ${error.message}` : error.message,
  };
}

/**
 * graphql-js's default resolution (a property, or a function of the field's arguments), except that a field the fake
 * does not model fails loudly instead of answering null, which a client could take for GitHub's answer.
 */
export const modelledField: GraphQLFieldResolver<unknown, unknown> = (source, args, _context, info) => {
  if (!isRecord(source) || !(info.fieldName in source)) {
    throw new Error(`fake-github: ${info.parentType.name}.${info.fieldName} is not modelled`);
  }
  const value = source[info.fieldName];
  return typeof value === "function" ? (value as (args: unknown) => unknown)(args) : value;
};

/** One resolver per mutation the fake serves; any other mutation fails as a field it does not model. */
function mutationRoot(d: RouteDeps): Record<string, (args: { input: never }) => Record<string, unknown>> {
  const { data } = d;
  const done = (input: Input, payload: Record<string, unknown>) => ({ clientMutationId: input.clientMutationId ?? null, ...payload });
  return {
    addComment: ({ input }: { input: Input & { subjectId: string; body: string } }) => {
      const { repo, issue } = issueById(d, input.subjectId);
      const comment = must(postAppComment(d, repo, issue.number, input.body));
      return done(input, { commentEdge: { node: commentObject(d, repo, comment) }, subject: issueObject(d, repo, issue) });
    },
    updateIssueComment: ({ input }: { input: Input & { id: string; body: string } }) => {
      const { repo, comment } = commentById(d, input.id);
      const problem = editComment(data, comment, input.body);
      if (problem) throw unprocessable(problem);
      return done(input, { issueComment: commentObject(d, repo, comment) });
    },
    addLabelsToLabelable: ({ input }: { input: LabelsInput }) => {
      const { repo, issue } = issueById(d, input.labelableId);
      addIssueLabels(data, issue, labelsOf(d, repo, input.labelIds));
      return done(input, { labelable: issueObject(d, repo, issue) });
    },
    removeLabelsFromLabelable: ({ input }: { input: LabelsInput }) => {
      const { repo, issue } = issueById(d, input.labelableId);
      removeIssueLabels(data, issue, labelsOf(d, repo, input.labelIds));
      return done(input, { labelable: issueObject(d, repo, issue) });
    },
    addAssigneesToAssignable: ({ input }: { input: AssigneesInput }) => {
      const { repo, issue } = issueById(d, input.assignableId);
      addAssignees(data, issue, input.assigneeIds.map((id) => loginById(d, id)));
      return done(input, { assignable: issueObject(d, repo, issue) });
    },
    removeAssigneesFromAssignable: ({ input }: { input: AssigneesInput }) => {
      const { repo, issue } = issueById(d, input.assignableId);
      removeAssignees(data, issue, input.assigneeIds.map((id) => loginById(d, id)));
      return done(input, { assignable: issueObject(d, repo, issue) });
    },
    createLabel: ({ input }: { input: Input & { repositoryId: string; name: string; color: string; description?: string | null } }) => {
      const repo = repoById(d, input.repositoryId);
      const label = must(createCheckedLabel(data, repo, input.name, input.color, input.description ?? null));
      return done(input, { label: labelObject(d, repo, label) });
    },
    deleteLabel: ({ input }: { input: Input & { id: string } }) => {
      const { repo, label } = labelById(d, input.id);
      deleteRepoLabel(repo, label);
      return done(input, {});
    },
  };
}

/** The labels of `ids`, every one resolved before any is applied, so a bad id changes nothing. */
function labelsOf(d: RouteDeps, repo: RepoRecord, ids: string[]): number[] {
  return ids.map((id) => {
    const found = labelById(d, id);
    if (found.repo !== repo) {
      throw new GraphqlError("UNPROCESSABLE", `fake-github: label '${id}' is another repository's (what GitHub answers is not modelled)`);
    }
    return found.label.id;
  });
}

/** The record a shared REST operation made, or its 422 as GitHub's GraphQL reports it. */
function must<T extends object>(made: T | Reply): T {
  if ("status" in made) throw unprocessable(made);
  return made;
}

/** A REST 422 (validation.ts's errors) as GitHub's GraphQL words it, Rails' way: "Name has already been taken". */
function unprocessable(refusal: Reply): GraphqlError {
  const errors = isRecord(refusal.json) && Array.isArray(refusal.json.errors) ? refusal.json.errors : [];
  const messages = errors.filter(isRecord).map((e) => {
    if (typeof e.message === "string") return capitalised(e.message);
    const field = capitalised(String(e.field ?? "input"));
    if (e.code === "missing_field") return `${field} can't be blank`;
    if (e.code === "already_exists") return `${field} has already been taken`;
    return `${field} is invalid`;
  });
  return new GraphqlError("UNPROCESSABLE", messages.join(", ") || "Unprocessable");
}

function capitalised(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
