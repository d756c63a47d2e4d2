/**
 * The comment handler on its own, in tables (prow's manner): a comment, the
 * repository's config and who wrote it go in; what comes out is the one
 * ledger operation it asks for (with what), the effects it would write for
 * the ledger's answer, and the outcome it reports. The ledger is a fake that
 * records the call and answers what the row says; GitHub is two functions.
 * The whole-app tests (test/app, test/e2e) run the same commands end to end.
 */
import { describe, expect, it } from "vitest";
import { type ConfigResult, DEFAULT_CONFIG } from "../../src/config/config.js";
import type { Config } from "../../src/config/schema.js";
import type { Reply } from "../../src/commands/reply.js";
import type { Permission } from "../../src/github/github-port.js";
import { type CommandDeps, type CommentEvent, handleComment, RELEASE_OTHERS_FORBIDDEN } from "../../src/leasing/handle-command.js";
import type { Holder, Lease } from "../../src/ledger/leases/lease-types.js";
import type { ReflectPayload } from "../../src/outbox/effects.js";
import { fakeLedger } from "./fake-lease-book.js";

const HOUR = 3_600_000;
const NOW = 1_800_000_000_000;
const alice: Holder = { id: 11, login: "alice" };
const bob: Holder = { id: 22, login: "bob" };
const lease = (holder: Holder, token = 7, expiresAt: number | null = NOW + 2 * HOUR): Lease => ({
  repoId: 100,
  repo: "octo/widgets",
  issue: 5,
  holder,
  token,
  acquiredAt: NOW,
  expiresAt,
  heldBy: { kind: "time" },
});

interface Row {
  name: string;
  body: string;
  author?: Holder & { type?: string; association?: string };
  state?: string;
  config?: Partial<Config> | { broken: string };
  permission?: Permission;
  /** What the ledger answers the operation (a note answers itself). */
  answer?: Record<string, unknown>;
  /** The ledger operation asked for, with the holder and TTL it names; null: none. */
  op: { op: string; holder?: Holder; ttl?: number | null; ifHolder?: string; detail?: Record<string, string> } | null;
  /** The outcome reported. */
  outcome: string | null;
  /** The reply written for the answer: its outcome and what it must say; null: no effect at all. */
  reply: { outcome: string; reconcile: boolean; fields?: Partial<Reply> } | null;
  /** Whether GitHub is asked the author's permission. */
  asksPermission?: boolean;
}

const ROWS: Row[] = [
  {
    name: "a claim with a duration asks the ledger for that lease and shows a new tenure with labels",
    body: "/claim 2h",
    answer: { outcome: "acquired", lease: lease(alice), newTenure: true },
    op: { op: "acquire", holder: alice, ttl: 2 * HOUR },
    outcome: "acquired",
    reply: { outcome: "acquired", reconcile: true, fields: { op: "claim", command: "/claim 2h", actor: "alice", newTenure: true } },
  },
  {
    name: "a claim without a duration takes the repository's default",
    body: "/claim",
    answer: { outcome: "acquired", lease: lease(alice), newTenure: false },
    op: { op: "acquire", holder: alice, ttl: DEFAULT_CONFIG.defaultTtl },
    outcome: "acquired",
    reply: { outcome: "acquired", reconcile: true, fields: { newTenure: false } },
  },
  {
    name: "a claim of a held issue is answered held, and changes no label",
    body: "/claim",
    answer: { outcome: "held", lease: lease(bob) },
    op: { op: "acquire", holder: alice, ttl: DEFAULT_CONFIG.defaultTtl },
    outcome: "held",
    reply: { outcome: "held", reconcile: false, fields: { lease: expect.objectContaining({ holder: "bob", token: 7 }) as never } },
  },
  {
    name: "a claim longer than max_ttl is refused and recorded with its rule, without a claim",
    body: "/claim 90d",
    op: { op: "note", holder: alice, detail: { outcome: "invalid", rule: "ttl", reason: expect.stringContaining("max_ttl: 30d") as never } },
    outcome: "invalid",
    reply: { outcome: "invalid", reconcile: false, fields: { rule: "ttl" } },
  },
  {
    name: "a claim on a closed issue is refused",
    body: "/claim",
    state: "closed",
    op: { op: "note", holder: alice, detail: { outcome: "forbidden", rule: "closed", reason: expect.stringContaining("closed") as never } },
    outcome: "forbidden",
    reply: { outcome: "forbidden", reconcile: false, fields: { rule: "closed" } },
  },
  {
    name: "a bot's claim is refused where bots: false",
    body: "/claim",
    author: { ...alice, type: "Bot" },
    config: { bots: false },
    op: { op: "note", holder: alice, detail: { outcome: "forbidden", rule: "bots", reason: expect.stringContaining("bots: false") as never } },
    outcome: "forbidden",
    reply: { outcome: "forbidden", reconcile: false },
  },
  {
    name: "a contributor's claim is refused where only collaborators claim",
    body: "/claim",
    config: { claimers: "collaborators" },
    op: { op: "note", holder: alice, detail: { outcome: "forbidden", rule: "claimers", reason: expect.any(String) as never } },
    outcome: "forbidden",
    reply: { outcome: "forbidden", reconcile: false },
  },
  {
    name: "any command under a broken config is answered with its error",
    body: "/renew",
    config: { broken: "max_ttl: not a duration" },
    op: { op: "note", holder: alice, detail: { outcome: "invalid", rule: "config", reason: "max_ttl: not a duration" } },
    outcome: "invalid",
    reply: { outcome: "invalid", reconcile: false, fields: { reason: "max_ttl: not a duration" } },
  },
  {
    name: "a malformed command is refused as syntax, naming what is accepted",
    body: "/claim 2x",
    op: { op: "note", holder: alice, detail: { outcome: "invalid", rule: "syntax", reason: expect.stringContaining("`2h`") as never } },
    outcome: "invalid",
    reply: { outcome: "invalid", reconcile: false, fields: { rule: "syntax" } },
  },
  {
    name: "a renewal naming someone is refused as syntax: it takes no @login",
    body: "/renew @bob",
    op: { op: "note", holder: alice, detail: { outcome: "invalid", rule: "syntax", reason: expect.stringContaining("takes no `@login`") as never } },
    outcome: "invalid",
    reply: { outcome: "invalid", reconcile: false },
  },
  {
    name: "a claim with a note after it is a claim of the default duration",
    body: "/claim forever and ever",
    answer: { outcome: "acquired", lease: lease(alice), newTenure: true },
    op: { op: "acquire", holder: alice, ttl: DEFAULT_CONFIG.defaultTtl },
    outcome: "acquired",
    reply: { outcome: "acquired", reconcile: true },
  },
  {
    name: "a renewal by the holder extends the lease and shows it",
    body: "/renew 3h",
    answer: { outcome: "renewed", lease: lease(alice) },
    op: { op: "renew", holder: alice, ttl: 3 * HOUR },
    outcome: "renewed",
    reply: { outcome: "renewed", reconcile: true },
  },
  {
    name: "a renewal by someone else is answered not_holder and changes no label",
    body: "/renew",
    answer: { outcome: "not_holder", lease: lease(bob) },
    op: { op: "renew", holder: alice, ttl: DEFAULT_CONFIG.defaultTtl },
    outcome: "not_holder",
    reply: { outcome: "not_holder", reconcile: false },
  },
  {
    name: "a release of one's own lease ends it, asking GitHub nothing",
    body: "/release",
    answer: { outcome: "released", lease: lease(alice) },
    op: { op: "release", holder: alice },
    outcome: "released",
    reply: { outcome: "released", reconcile: true },
  },
  {
    name: "a release naming oneself is one's own release",
    body: "/release @Alice",
    answer: { outcome: "released", lease: lease(alice) },
    op: { op: "release", holder: alice },
    outcome: "released",
    reply: { outcome: "released", reconcile: true },
  },
  {
    name: "a release of someone else's lease by a reader is refused after asking GitHub",
    body: "/release @bob",
    permission: "read",
    op: { op: "note", holder: alice, detail: { outcome: "forbidden", rule: "permission", reason: RELEASE_OTHERS_FORBIDDEN } },
    outcome: "forbidden",
    reply: { outcome: "forbidden", reconcile: false },
    asksPermission: true,
  },
  {
    name: "a release of someone else's lease by a maintainer ends it only if they hold it, and mentions them",
    body: "/release @bob",
    permission: "maintain",
    answer: { outcome: "released", lease: lease(bob) },
    op: { op: "forceRelease", holder: alice, ifHolder: "bob" },
    outcome: "released",
    reply: { outcome: "released", reconcile: true, fields: { mentionHolder: true } },
    asksPermission: true,
  },
  {
    name: "a maintainer's release of someone who holds nothing is answered not_holder",
    body: "/release @bob",
    permission: "admin",
    answer: { outcome: "not_holder", lease: lease(alice) },
    op: { op: "forceRelease", holder: alice, ifHolder: "bob" },
    outcome: "not_holder",
    reply: { outcome: "not_holder", reconcile: false },
    asksPermission: true,
  },
  {
    name: "a release that hands the lease to the first in line shows the new tenure",
    body: "/release",
    answer: { outcome: "released", lease: lease(alice, 7), handoff: lease(bob, 8) },
    op: { op: "release", holder: alice },
    outcome: "released",
    reply: { outcome: "acquired", reconcile: true, fields: { lease: expect.objectContaining({ holder: "bob", token: 8 }) as never } },
  },
  {
    name: "/lease records a status note with the tenures",
    body: "/lease",
    op: { op: "note", holder: alice },
    outcome: "status",
    reply: { outcome: "status", reconcile: false, fields: { op: "status", tenures: [] } },
  },
  {
    name: "a comment without a command asks nothing and writes nothing",
    body: "I'd like to work on this, if nobody minds.",
    op: null,
    outcome: null,
    reply: null,
  },
  {
    name: "a command in a quote is no command",
    body: "> /claim\n\nsomeone said that",
    op: null,
    outcome: null,
    reply: null,
  },
];

function configOf(row: Row): ConfigResult {
  if (row.config && "broken" in row.config) return { ok: false, error: row.config.broken };
  return { ok: true, config: { ...DEFAULT_CONFIG, ...row.config } };
}

describe("a comment's command, decided by the handler", () => {
  it.each(ROWS)("$name", async (row) => {
    const { ledger, calls, effects } = fakeLedger<CommandDeps["ledger"]>(row.answer);
    const asked: string[] = [];
    const ev: CommentEvent = {
      delivery: "d-1",
      installation: 9,
      repo: { id: 100, owner: "octo", name: "widgets" },
      issue: { number: 5, labels: [], ...(row.state ? { state: row.state } : {}) },
      author: { id: (row.author ?? alice).id, login: (row.author ?? alice).login, type: row.author?.type ?? "User", association: row.author?.association ?? "CONTRIBUTOR" },
      body: row.body,
      commentId: 31,
    };
    const handled = await handleComment(ev, {
      ledger,
      now: NOW,
      config: () => Promise.resolve(configOf(row)),
      permission: (login) => (asked.push(login), Promise.resolve(row.permission ?? "none")),
    });

    expect(handled?.outcome ?? null).toBe(row.outcome);
    expect(asked).toEqual(row.asksPermission ? ["alice"] : []);
    if (row.op === null) {
      expect(calls).toEqual([]);
      return;
    }
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call!.op).toBe(row.op.op);
    if (row.op.holder) expect(call!.holder).toEqual(row.op.holder);
    if (row.op.ttl !== undefined) expect(call!.ttl).toBe(row.op.ttl);
    if (row.op.ifHolder !== undefined) expect(call!.opts.ifHolder).toBe(row.op.ifHolder);
    if (row.op.detail) expect(call!.opts.detail).toEqual(row.op.detail);
    // Every operation carries the delivery (a redelivery changes nothing) and the installation (its events).
    expect(call!.opts).toMatchObject({ delivery: "d-1", installation: 9 });

    const made = effects();
    if (row.reply === null) {
      expect(made).toEqual([]);
      return;
    }
    expect(made).toHaveLength(1);
    const payload = made[0]!.payload as ReflectPayload;
    expect(made[0]).toMatchObject({ installation: 9, kind: "reflect" });
    expect(payload).toMatchObject({ owner: "octo", repo: "widgets", reconcile: row.reply.reconcile });
    expect(payload.reply).toMatchObject({ outcome: row.reply.outcome, issue: 5, at: NOW, comment: 31, ...row.reply.fields });
    // Labels and the assignee follow only what changed a lease; their templates go with it.
    if (row.reply.reconcile) expect(payload.labels).toEqual(DEFAULT_CONFIG.labels);
  });
});
