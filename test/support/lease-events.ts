/** Lease events for tests of what reads them (webhooks, their bodies). */
import type { LeaseEvent } from "../../src/ledger/events/event-types.js";

/** alice's claim of octo/app#12, lease #3 until 14:00 UTC, unless `fields` say otherwise. */
export function leaseEvent(fields: Partial<LeaseEvent> = {}): LeaseEvent {
  return {
    id: "41",
    seq: 7,
    type: "lease.acquired",
    at: "2026-12-01T12:00:00.000Z",
    repo: "octo/app",
    issue: 12,
    holder: { login: "alice", id: 101, instance: null },
    token: 3,
    expires_at: "2026-12-01T14:00:00.000Z",
    actor: { login: "alice", id: 101 },
    cause: "command",
    ...fields,
  };
}
