/**
 * The ledger: every role of every noun, as each store (sqlite/, postgres/)
 * implements it. Each caller is typed with only the roles it uses (the
 * drainer the outbox's, the board its reads); only wiring (app.ts, the CLI's
 * opening of a database) holds the whole. Time is a parameter (`now`) of
 * every call and never read inside; rows are never deleted.
 */
import type { LedgerAdmin, LedgerHealth, NamedLocks } from "./admin/admin-roles.js";
import type { BoardMemory, BoardReads } from "./board/board-roles.js";
import type { EventLog } from "./events/event-roles.js";
import type { Inventory } from "./inventory/inventory-roles.js";
import type { LeaseBook, LeaseReads, Sweeps } from "./leases/lease-roles.js";
import type { OutboxStore, Reflections } from "./outbox/outbox-roles.js";
import type { RepoMemory } from "./repos/repo-memory.js";
import type { FollowLinks } from "./work/work-roles.js";

/** Every role: what a store implements, and what only wiring holds. */
export interface Ledger
  extends LeaseBook, LeaseReads, Sweeps, OutboxStore, LedgerHealth, Reflections, RepoMemory, NamedLocks, FollowLinks, BoardMemory, BoardReads, Inventory,
    EventLog, LedgerAdmin {}
