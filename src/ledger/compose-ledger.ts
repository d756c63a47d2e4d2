/**
 * A store's ledger, made of its parts: written once for both stores
 * (sqlite/sqlite-ledger.ts and postgres/postgres-ledger.ts hand theirs over).
 *
 * The operations written once as plans (leases/lease-plans.ts,
 * work/work-plans.ts) each run as one transaction of the store (`run`).
 * Every other method is kept by a part of the store, by noun: its leases
 * (their reads outside the operations), its outbox, its repositories, its
 * board, its inventory, its events. `composeLedger` puts each part's methods
 * on the ledger itself, bound to the part, once, when the store opens: the
 * ledger's `takeEffects` *is* its outbox's, and no method forwards to
 * another. Callers keep one flat ledger, each typed with the roles it uses
 * (ledger.ts). What no part keeps, the store keeps itself (`StoreOwn`).
 */
import type { Ledger } from "./ledger.js";
import { leaseOperations } from "./leases/lease-plans.js";
import type { Holder, IssueKey } from "./leases/lease-types.js";
import type { RunPlan } from "./plan.js";
import { workOperations } from "./work/work-plans.js";

/** What each store keeps itself: whether its database answers, its schema, its token floor, its named locks, closing. */
export type StoreOwn = "ping" | "schemaVersion" | "raiseTokenFloor" | "close" | "holdLock" | "sharedByProcesses";

/** What `composeLedger` gives a store's ledger: every method but the store's own. */
export type ComposedLedger = Omit<Ledger, StoreOwn>;

/** The methods of the ledger each part of a store keeps. */
const PART_METHODS = {
  leases: ["recorded", "renameHolder", "current", "list", "liveAmong", "listHeldBy", "listAll", "latestToken", "history", "queue", "expiredSince", "dueReminders"],
  outbox: ["takeEffects", "takeFollowers", "extendEffects", "completeEffect", "failEffect", "unparkEffects", "outboxStats"],
  repos: ["rememberRepo", "repoInfo", "findRepo", "getReflection", "putReflection"],
  boardMemory: ["rememberCard", "dropCard", "rememberVisibility", "forgetRepos"],
  boardReads: ["boardRepo", "boardLeases", "boardPanels"],
  inventory: ["rememberIssues", "closeUnseen", "markFilled", "lastFill", "staleFills", "inventoryRepos", "forgetInventory", "readyIssues"],
  events: ["eventsAfter", "eventsSince", "lastEventPos", "watchEvents", "pruneEvents", "eventCursor", "advanceEventCursor"],
} as const satisfies Record<string, ReadonlyArray<keyof ComposedLedger>>;

type Part<P extends keyof typeof PART_METHODS> = Pick<Ledger, (typeof PART_METHODS)[P][number]>;

/** A part made on first use (SQLite prepares the board's and the inventory's statements only when first read or written); its methods are async. */
export class OnFirstUse<P> {
  constructor(readonly make: () => P) {}
}

/** A store's leases outside the operations, and whether an actor's activity could renew anything (one indexed read, no transaction). */
export interface LeasePart extends Part<"leases"> {
  mayRenew(key: IssueKey, actor: Holder, now: number): Promise<boolean>;
}

export interface StoreParts {
  /** Runs a plan as one transaction of the store. */
  run: RunPlan;
  leases: LeasePart;
  outbox: Part<"outbox">;
  /** The repositories seen, and what the outbox last applied to each issue. */
  repos: Part<"repos">;
  boardMemory: Part<"boardMemory"> | OnFirstUse<Part<"boardMemory">>;
  boardReads: Part<"boardReads"> | OnFirstUse<Part<"boardReads">>;
  inventory: Part<"inventory"> | OnFirstUse<Part<"inventory">>;
  events: Part<"events">;
}

/** Makes `ledger` (a store, as it opens) the ledger its parts keep: every method but the store's own, each put on it once. */
export function composeLedger(ledger: ComposedLedger, parts: StoreParts): void {
  // Typed as the ledger, so that a method no part keeps fails to compile.
  const methods: ComposedLedger = {
    ...leaseOperations(parts.run),
    ...workOperations(parts.run, (key, actor, now) => parts.leases.mayRenew(key, actor, now)),
    ...methodsOf(parts.leases, PART_METHODS.leases),
    ...methodsOf(parts.outbox, PART_METHODS.outbox),
    ...methodsOf(parts.repos, PART_METHODS.repos),
    ...methodsOf(parts.boardMemory, PART_METHODS.boardMemory),
    ...methodsOf(parts.boardReads, PART_METHODS.boardReads),
    ...methodsOf(parts.inventory, PART_METHODS.inventory),
    ...methodsOf(parts.events, PART_METHODS.events),
  };
  // As a class's methods are: not enumerable (a spread of the ledger copies none), and replaceable (a test's spy).
  for (const [name, method] of Object.entries(methods)) Object.defineProperty(ledger, name, { value: method, writable: true, configurable: true });
}

/** The methods `names` of `part`, each bound to it (a part made on first use is made by the first call to any of them). */
function methodsOf<P extends object, K extends keyof P>(part: P | OnFirstUse<P>, names: readonly K[]): Pick<P, K> {
  const methods = {} as Pick<P, K>;
  if (part instanceof OnFirstUse) {
    let made: P | undefined;
    for (const name of names) {
      const method = async (...args: unknown[]) => {
        const it = (made ??= part.make());
        return (it[name] as (...a: unknown[]) => unknown).apply(it, args);
      };
      methods[name] = method as P[K];
    }
  } else {
    for (const name of names) methods[name] = (part[name] as (...a: unknown[]) => unknown).bind(part) as P[K];
  }
  return methods;
}
