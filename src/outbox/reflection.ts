/**
 * What the reflector keeps of an issue between effects: what it last
 * applied there (its "reflection"), and that reflection as GitHub's answer
 * to a GraphQL document left it.
 */
import type { Effect } from "../ledger/outbox/outbox-types.js";
import type { Lease } from "../ledger/leases/lease-types.js";
import type { LabelTemplates } from "../github/labels.js";
import type { ReflectPayload } from "./effects.js";
import type { WriteBatch } from "./write-batch.js";

/** What the drainer last applied to an issue. */
export interface Reflection {
  /** Labels the app put on the issue (and so may take off). */
  labels: string[];
  assignee: string | null;
  /** A login GitHub refused to assign, not to be tried again for the same holder. */
  refused?: string | null;
  templates?: LabelTemplates;
  assign?: boolean;
  /** The issue's and the assignee's GraphQL node ids, once the app learned them (GITHUB_WRITES=graphql). */
  nodeId?: string;
  assigneeId?: string;
}

/** An effect that changed the lease's showing: the pull requests that close its issue are checked again. */
export interface Change {
  effect: Effect;
  p: ReflectPayload;
  current: Lease | null;
}

/** A reflection as GitHub's answer to the effect's document left it: the issue's id learned, an assignment GitHub did not make. */
export function settled(reflection: Reflection, batch: WriteBatch): Reflection {
  const { assigneeId: _, ...out } = { ...reflection, ...(batch.issueId ? { nodeId: batch.issueId } : {}) };
  if (out.assignee && !batch.assigned(out.assignee)) return { ...out, assignee: null, refused: out.assignee };
  // Kept with the issue, so that an expiry in another process, or after a restart, unassigns without asking who.
  const assigneeId = out.assignee ? batch.userId(out.assignee) : null;
  return assigneeId ? { ...out, assigneeId } : out;
}
