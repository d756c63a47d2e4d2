/**
 * The machine-readable last line of every comment the app posts: what the
 * reply said (operation, outcome, holder, token, expiry), read back by bots
 * and by the outbox looking for a comment it already posted.
 */
import type { HeldBy } from "../ledger/leases/lease-types.js";

/** What the marker reads of a reply (render.ts's Reply has it all). */
export interface Marked {
  op: string;
  outcome: string;
  issue: number;
  lease: { holder: string; instance?: string; token: number; expiresAt: number | null; heldBy?: HeldBy } | null;
  position?: number;
  queue?: ReadonlyArray<{ holder: string }>;
  via?: string;
  comment?: number;
}

/** A time as the marker and the replies write it: ISO 8601 to the second. */
export function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The machine-readable last line of every comment the app posts. */
export function marker(reply: Marked, ref?: string): string {
  const data: Record<string, unknown> = {
    op: reply.op,
    outcome: reply.outcome,
    issue: reply.issue,
    holder: reply.lease?.holder ?? null,
    token: reply.lease?.token ?? null,
    expires_at: reply.lease?.expiresAt == null ? null : iso(reply.lease.expiresAt),
  };
  // Only when something besides time holds the lease: `expires_at` is null then, which alone would read as open-ended.
  if (reply.lease?.heldBy) data.held_by = reply.lease.heldBy;
  if (reply.lease?.instance !== undefined) data.instance = reply.lease.instance;
  if (reply.position !== undefined) data.position = reply.position;
  if (reply.queue !== undefined && reply.queue.length > 0) data.queue = reply.queue.map((p) => p.holder);
  if (reply.via !== undefined) data.via = reply.via;
  if (reply.comment !== undefined) data.comment = reply.comment;
  if (ref !== undefined) data.ref = ref;
  return `<!-- issue-leases: ${JSON.stringify(data)} -->`;
}

/** Parses a marker line back (for bots, and for the outbox looking for a comment it already posted). */
export function parseMarker(body: string): Record<string, unknown> | null {
  const m = /<!-- issue-leases: (\{.*\}) -->\s*$/.exec(body);
  if (!m) return null;
  try {
    return JSON.parse(m[1]!) as Record<string, unknown>;
  } catch {
    return null;
  }
}
