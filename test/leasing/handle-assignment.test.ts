/**
 * Assignment as a claim, decided by its handlers on their own, in tables: an
 * `issues.assigned` or `issues.unassigned`, the config and what GitHub says
 * of the sender's permission go in; out come the one ledger operation asked
 * for, the effect written for the ledger's answer, what GitHub was asked, and
 * the outcome. The ledger is test/leasing/fake-lease-book.ts; the whole-app
 * tests (test/app/assignment.test.ts, unassignment.test.ts) run the same
 * events end to end.
 */
import { describe, expect, it } from "vitest";
import { type ConfigResult, DEFAULT_CONFIG } from "../../src/config/config.js";
import type { Permission } from "../../src/github/github-port.js";
import type { Reply } from "../../src/commands/reply.js";
import {
  ASSIGN_FORBIDDEN,
  type AssignmentDeps,
  type AssignmentEvent,
  handleAssigned,
  handleUnassigned,
  UNASSIGN_FORBIDDEN,
} from "../../src/leasing/handle-assignment.js";
import type { Holder, Lease } from "../../src/ledger/leases/lease-types.js";
import type { ReflectPayload } from "../../src/outbox/effects.js";
import { fakeLedger } from "./fake-lease-book.js";

const NOW = 1_800_000_000_000;
const maint: Holder = { id: 1, login: "maint" };
const alice: Holder = { id: 11, login: "alice" };
const bob: Holder = { id: 22, login: "bob" };
const lease = (holder: Holder, token = 4, acquiredAt = NOW - 60_000): Lease => ({
  repoId: 100,
  repo: "octo/widgets",
  issue: 5,
  holder,
  token,
  acquiredAt,
  expiresAt: NOW + 3_600_000,
  heldBy: { kind: "time" },
});

interface Row {
  name: string;
  event: "assigned" | "unassigned";
  sender: Holder;
  assignee: Holder;
  /** Permission GitHub answers for the sender. */
  permission?: Permission;
  config?: "claims" | "ignore" | "broken";
  state?: string;
  /** The live lease before the event. */
  live?: Lease | null;
  /** When GitHub says the event happened (ms). */
  at?: number;
  answer?: Record<string, unknown>;
  op: { op: string; holder?: Holder; ifToken?: number; detail?: Record<string, string> } | null;
  outcome: string | null;
  reply?: { outcome: string; reconcile: boolean; fields?: Partial<Reply>; assignee?: { login: string; assigned: boolean } };
  /** Whom GitHub is asked the permission of. */
  asked: string[];
}

const ROWS: Row[] = [
  {
    name: "a maintainer's assignment is their /claim @assignee: the lease is the assignee's, and GitHub's assignment is not made again",
    event: "assigned",
    sender: maint,
    assignee: bob,
    permission: "maintain",
    answer: { outcome: "acquired", lease: lease(bob, 5, NOW), newTenure: true },
    op: { op: "acquire", holder: bob },
    outcome: "acquired",
    reply: { outcome: "acquired", reconcile: true, fields: { command: "assigned bob", actor: "maint", assignedBy: "maint", mentionHolder: true }, assignee: { login: "bob", assigned: true } },
    asked: ["maint"],
  },
  {
    name: "an assignment by someone without write permission is refused, and the assignment stays",
    event: "assigned",
    sender: alice,
    assignee: bob,
    permission: "triage",
    op: { op: "note", holder: alice, detail: { outcome: "forbidden", rule: "permission", reason: ASSIGN_FORBIDDEN } },
    outcome: "forbidden",
    reply: { outcome: "forbidden", reconcile: false },
    asked: ["alice"],
  },
  {
    name: "an assignment while someone else holds the lease stays only on GitHub: held, and no place in line",
    event: "assigned",
    sender: maint,
    assignee: bob,
    permission: "admin",
    live: lease(alice),
    answer: { outcome: "held", lease: lease(alice) },
    op: { op: "acquire", holder: bob },
    outcome: "held",
    reply: { outcome: "held", reconcile: false, fields: { reason: "**bob** stays assigned on GitHub, without a lease." } },
    asked: ["maint"],
  },
  {
    name: "an assignment where the config says `assignment: ignore` does nothing and asks GitHub nothing",
    event: "assigned",
    sender: maint,
    assignee: bob,
    config: "ignore",
    op: null,
    outcome: null,
    asked: [],
  },
  {
    name: "an assignment under a broken config does nothing: its error is for commands to report",
    event: "assigned",
    sender: maint,
    assignee: bob,
    config: "broken",
    op: null,
    outcome: null,
    asked: [],
  },
  {
    name: "an assignment on a closed issue does nothing",
    event: "assigned",
    sender: maint,
    assignee: bob,
    state: "closed",
    op: null,
    outcome: null,
    asked: [],
  },
  {
    name: "assigning the holder of the live lease changes nothing: the sidebar shows what the ledger says",
    event: "assigned",
    sender: maint,
    assignee: alice,
    live: lease(alice),
    op: null,
    outcome: null,
    asked: [],
  },
  {
    name: "the holder unassigning themselves releases their tenure, without asking GitHub",
    event: "unassigned",
    sender: alice,
    assignee: alice,
    live: lease(alice, 4),
    answer: { outcome: "released", lease: lease(alice, 4) },
    op: { op: "forceRelease", holder: alice, ifToken: 4 },
    outcome: "released",
    reply: { outcome: "released", reconcile: true, fields: { mentionHolder: false, command: "unassigned alice" }, assignee: { login: "alice", assigned: false } },
    asked: [],
  },
  {
    name: "a maintainer unassigning the holder releases it and mentions them",
    event: "unassigned",
    sender: maint,
    assignee: alice,
    permission: "write",
    live: lease(alice, 4),
    answer: { outcome: "released", lease: lease(alice, 4) },
    op: { op: "forceRelease", holder: maint, ifToken: 4 },
    outcome: "released",
    reply: { outcome: "released", reconcile: true, fields: { mentionHolder: true } },
    asked: ["maint"],
  },
  {
    name: "someone without write permission unassigning the holder is told the lease stands",
    event: "unassigned",
    sender: bob,
    assignee: alice,
    permission: "read",
    live: lease(alice, 4),
    op: { op: "note", holder: bob, detail: { outcome: "forbidden", rule: "permission", reason: UNASSIGN_FORBIDDEN } },
    outcome: "forbidden",
    reply: { outcome: "forbidden", reconcile: false },
    asked: ["bob"],
  },
  {
    name: "an unassignment GitHub stamped before the live tenure began is not about it",
    event: "unassigned",
    sender: alice,
    assignee: alice,
    live: lease(alice, 4, NOW - 60_000),
    at: NOW - 120_000,
    op: null,
    outcome: null,
    asked: [],
  },
  {
    name: "unassigning someone who holds no lease does nothing and asks GitHub nothing",
    event: "unassigned",
    sender: maint,
    assignee: bob,
    live: lease(alice),
    op: null,
    outcome: null,
    asked: [],
  },
];

function configOf(row: Row): ConfigResult {
  if (row.config === "broken") return { ok: false, error: "assignment: not a choice" };
  return { ok: true, config: { ...DEFAULT_CONFIG, assignment: row.config ?? "claims" } };
}

describe("an assignment in the sidebar, decided by its handlers", () => {
  it.each(ROWS)("$name", async (row) => {
    const { ledger, calls, effects } = fakeLedger<AssignmentDeps["ledger"]>(row.answer, row.live ?? null);
    const asked: string[] = [];
    const ev: AssignmentEvent = {
      delivery: "d-9",
      installation: 9,
      repo: { id: 100, owner: "octo", name: "widgets" },
      issue: { number: 5, labels: [], ...(row.state ? { state: row.state } : {}) },
      sender: row.sender,
      assignee: { ...row.assignee, type: "User" },
      ...(row.at !== undefined ? { at: row.at } : {}),
    };
    const deps: AssignmentDeps = {
      ledger,
      now: NOW,
      config: () => Promise.resolve(configOf(row)),
      permission: (login) => (asked.push(login), Promise.resolve(row.permission ?? "none")),
    };
    const handled = row.event === "assigned" ? await handleAssigned(ev, deps) : await handleUnassigned(ev, deps);

    expect(handled?.outcome ?? null).toBe(row.outcome);
    expect(asked).toEqual(row.asked);
    if (row.op === null) {
      expect(calls).toEqual([]);
      return;
    }
    expect(calls.map((c) => c.op)).toEqual([row.op.op]);
    const call = calls[0]!;
    if (row.op.holder) expect(call.holder).toEqual(row.op.holder);
    if (row.op.ifToken !== undefined) expect(call.opts.ifToken).toBe(row.op.ifToken);
    if (row.op.detail) expect(call.opts.detail).toEqual(row.op.detail);
    expect(call.opts).toMatchObject({ delivery: "d-9", installation: 9 });
    // An assignment never waits in line: it stays on GitHub instead.
    expect(call.opts.queue).toBeUndefined();

    const made = effects();
    expect(made).toHaveLength(1);
    const payload = made[0]!.payload as ReflectPayload;
    expect(payload).toMatchObject({ owner: "octo", repo: "widgets", reconcile: row.reply!.reconcile });
    expect(payload.reply).toMatchObject({ outcome: row.reply!.outcome, issue: 5, at: NOW, ...row.reply!.fields });
    if (row.reply!.assignee) expect(payload.assignee).toEqual(row.reply!.assignee);
  });
});
