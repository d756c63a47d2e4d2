/**
 * The writes a batch records (write-batch.ts), and what each becomes in the
 * GraphQL document: the mutation of one recorded write, by the node ids the
 * batch knows, or nothing when GitHub has no such label or user.
 */
import type { NodeIds } from "../github/node-ids.js";
import { GraphqlRefused, type GraphqlFailure, type Mutation } from "../github/graphql-writes.js";

export type Recorded =
  | { op: "addLabels"; names: string[] }
  | { op: "removeLabel"; name: string }
  | { op: "deleteLabel"; name: string }
  | { op: "addAssignee"; login: string }
  | { op: "removeAssignee"; login: string }
  | { op: "comment"; body: string };

export const lower = (s: string) => s.toLowerCase();
/** The id a NOT_FOUND names ("Could not resolve to a node with the global id of '…'"), "" when it names none; null for another error. */
export const unresolved = (f: GraphqlFailure): string | null => (f.type === "NOT_FOUND" ? (/'([^']+)'/.exec(f.message)?.[1] ?? "") : null);
export const unique = (names: string[]) => [...new Map(names.map((n) => [lower(n), n])).values()];
/** A bot cannot be assigned, and GraphQL's `user(login:)` does not find one. */
export const isBot = (login: string) => /\[bot\]$/i.test(login);

/**
 * The mutation of one recorded write, or null when there is nothing to do (a label or user GitHub does not have).
 * `ids`: label ids by name in lower case; `issueId`: the issue's node id, when known (of issue number `issue`).
 */
export function mutationOf(w: Recorded, ids: Record<string, string>, issueId: string | null, issue: number, known: Pick<NodeIds, "user">): Mutation | null {
  const need = (): string => {
    if (!issueId) throw new GraphqlRefused([{ type: "NOT_FOUND", message: `no node id for issue #${issue}` }]);
    return issueId;
  };
  switch (w.op) {
    case "addLabels": {
      const labelIds = w.names.map((n) => ids[lower(n)]).filter((id): id is string => !!id);
      return labelIds.length === 0 ? null : { op: "addLabels", labelableId: need(), labelIds };
    }
    case "removeLabel":
      return ids[lower(w.name)] ? { op: "removeLabels", labelableId: need(), labelIds: [ids[lower(w.name)]!] } : null;
    case "deleteLabel":
      return ids[lower(w.name)] ? { op: "deleteLabel", id: ids[lower(w.name)]! } : null;
    case "addAssignee":
    case "removeAssignee": {
      const user = isBot(w.login) ? null : known.user(w.login);
      if (!user) return null;
      return { op: w.op === "addAssignee" ? "addAssignees" : "removeAssignees", assignableId: need(), assigneeIds: [user] };
    }
    case "comment":
      return { op: "addComment", subjectId: need(), body: w.body };
  }
}
