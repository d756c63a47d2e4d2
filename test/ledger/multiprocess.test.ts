/**
 * Several OS processes share one SQLite file and race on a few issues with the
 * real clock. Afterwards the history must read as one serial story: tokens
 * 1..n per issue, each handed out once, every recorded outcome what the rules
 * give on the state left by the rows before it, ending in the stored state.
 *
 * The workers run the real ledger without a build: the ledger's sources (and
 * the worker) are transpiled with the TypeScript compiler into a temp folder
 * that mirrors the repository's layout, with node_modules linked in.
 */
import { fork, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import type { HistoryEntry } from "../../src/ledger/leases/lease-types.js";
import type { FromWorker, ToWorker, WorkerConfig, WorkerReport } from "./multiprocess-worker.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const WORKER = "test/ledger/multiprocess-worker.ts";
const PROCESSES = 4;
const OPS_PER_PROCESS = 750;
const ISSUES = [1, 2, 3, 4];
const REPO = { repoId: 4242, repo: "race/track" };

/** Transpiles `entry` and every file it imports relatively, keeping paths, into `outDir`. */
function transpile(entry: string, outDir: string): void {
  const seen = new Set<string>();
  const pending = [resolve(ROOT, entry)];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, "utf8");
    const { outputText } = ts.transpileModule(source, {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
    });
    const out = join(outDir, relative(ROOT, file)).replace(/\.ts$/, ".js");
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, outputText);
    // Relative imports end in `.js` (NodeNext); their sources are the `.ts` beside.
    for (const m of source.matchAll(/from\s+["'](\.{1,2}\/[^"']+)\.js["']/g)) {
      pending.push(resolve(dirname(file), `${m[1]}.ts`));
    }
  }
}

interface Child {
  process: ChildProcess;
  next(type: FromWorker["type"]): Promise<FromWorker>;
}

function spawnWorker(script: string): Child {
  const child = fork(script, [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const inbox: FromWorker[] = [];
  const waiting: Array<(m: FromWorker) => void> = [];
  let exit: Error | null = null;
  child.on("message", (m: FromWorker) => {
    const w = waiting.shift();
    if (w) w(m);
    else inbox.push(m);
  });
  child.on("close", (code, signal) => {
    exit = new Error(`worker exited early (code ${code}, signal ${signal})`);
  });
  return {
    process: child,
    next(type) {
      return new Promise((resolve, reject) => {
        const check = (m: FromWorker) => {
          if (m.type === type) resolve(m);
          else reject(new Error(`worker sent ${JSON.stringify(m)}, expected ${type}`));
        };
        const m = inbox.shift();
        if (m) return check(m);
        if (exit) return reject(exit);
        waiting.push(check);
        child.once("close", () => reject(exit ?? new Error("worker exited")));
      });
    },
  };
}

interface State {
  holderId: number | null;
  token: number;
  expiresAt: number | null;
}

const live = (s: State, at: number) => s.holderId !== null && (s.expiresAt === null || s.expiresAt > at);

/**
 * Replays an issue's history in commit order: each row's outcome must be the
 * one the rules give on the state the earlier rows left. Returns the end state.
 */
function replay(history: HistoryEntry[]): State {
  const s: State = { holderId: null, token: 0, expiresAt: null };
  for (const h of history) {
    const what = `history row ${JSON.stringify(h)} after state ${JSON.stringify(s)}`;
    const actor = h.actor?.id ?? null;
    const mine = live(s, h.at) && s.holderId === actor;
    const others = live(s, h.at) && s.holderId !== actor;
    switch (`${h.op}:${h.outcome}`) {
      case "acquire:acquired":
        expect(others, what).toBe(false);
        expect(h.holder?.id, what).toBe(actor);
        expect(h.token, what).toBe(mine ? s.token : s.token + 1);
        Object.assign(s, { holderId: actor, token: h.token, expiresAt: h.expiresAt });
        break;
      case "acquire:held":
        expect(others, what).toBe(true);
        expect([h.holder?.id, h.token], what).toEqual([s.holderId, s.token]);
        break;
      case "renew:renewed":
        expect(mine, what).toBe(true);
        expect(h.token, what).toBe(s.token);
        s.expiresAt = h.expiresAt;
        break;
      case "renew:not_holder":
        expect(mine, what).toBe(false);
        break;
      case "release:released":
        expect(others, what).toBe(false);
        expect(h.token, what).toBe(mine ? s.token : null);
        s.holderId = null;
        break;
      case "release:not_holder":
        expect(others, what).toBe(true);
        break;
      case "expire:expired":
        expect(s.holderId, what).not.toBeNull();
        expect(s.expiresAt !== null && s.expiresAt <= h.at, what).toBe(true);
        expect(h.token, what).toBe(s.token);
        s.holderId = null;
        break;
      case "expire:stale":
        break;
      default:
        throw new Error(`unexpected ${what}`);
    }
  }
  return s;
}

describe("sqlite ledger shared by several processes", () => {
  let dir: string;
  let reports: WorkerReport[];
  let file: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "issue-leases-mp-"));
    const code = join(dir, "code");
    transpile(WORKER, code);
    writeFileSync(join(code, "package.json"), JSON.stringify({ type: "module" }));
    symlinkSync(join(ROOT, "node_modules"), join(code, "node_modules"), "dir");
    file = join(dir, "db", "ledger.db");

    const children = Array.from({ length: PROCESSES }, () => spawnWorker(join(code, WORKER.replace(/\.ts$/, ".js"))));
    try {
      // Open all (they migrate the fresh file at once), then start all together.
      await Promise.all(
        children.map((c, worker) => {
          const config: WorkerConfig = { file, repo: REPO, worker: worker + 1, ops: OPS_PER_PROCESS, issues: ISSUES, seed: Date.now() + worker };
          c.process.send({ type: "start", config } satisfies ToWorker);
          return c.next("ready");
        }),
      );
      const done = children.map((c) => c.next("done"));
      for (const c of children) c.process.send({ type: "go" } satisfies ToWorker);
      reports = (await Promise.all(done)).map((m) => (m as Extract<FromWorker, { type: "done" }>).report);
    } finally {
      for (const c of children) if (c.process.exitCode === null) c.process.kill();
    }
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("no call failed, and none with SQLITE_BUSY", () => {
    const errors = reports.flatMap((r) => r.errors);
    expect(errors.filter((e) => e.code?.startsWith("SQLITE_BUSY"))).toEqual([]);
    expect(errors).toEqual([]);
    // Every call returned. (Outcomes can number fewer: a sweep may find nothing.)
    expect(reports.map((r) => r.completed)).toEqual(Array(PROCESSES).fill(OPS_PER_PROCESS));
  });

  it("really raced: new tenures, refusals and expiries all happened", () => {
    const outcomes: Record<string, number> = {};
    for (const r of reports) for (const [k, n] of Object.entries(r.outcomes)) outcomes[k] = (outcomes[k] ?? 0) + n;
    const expected = ["acquire:acquired", "acquire:held", "release:released", "release:not_holder", "renew:renewed", "expire:expired"];
    for (const k of expected) expect(outcomes[k] ?? 0, `${k} in ${JSON.stringify(outcomes)}`).toBeGreaterThan(0);
    expect(reports.every((r) => r.tenures.length > 0)).toBe(true);
  });

  it("tenures: no token shared, 1..n without gaps, the row keeps the highest", async () => {
    const ledger = new SqliteLedger(file);
    try {
      for (const issue of ISSUES) {
        const tenures = reports.flatMap((r) => r.tenures.filter((t) => t.issue === issue));
        const tokens = tenures.map((t) => t.token).sort((a, b) => a - b);
        expect(tokens.length).toBeGreaterThan(0);
        expect(tokens).toEqual(tokens.map((_, i) => i + 1));

        const history = await ledger.history({ repoId: REPO.repoId, issue }, 1_000_000_000);
        // The history's tenures are those the processes were handed, each with one holder.
        const holderOf = new Map<number, number>();
        for (const h of history.filter((h) => h.op === "acquire" && h.outcome === "acquired")) {
          const before = holderOf.get(h.token!);
          if (before !== undefined) expect(h.holder?.id).toBe(before);
          holderOf.set(h.token!, h.holder!.id);
        }
        expect([...holderOf].sort(([a], [b]) => a - b)).toEqual(tenures.sort((a, b) => a.token - b.token).map((t) => [t.token, t.holderId]));

        const row = ledger.db
          .prepare<[number, number], { token: number; holder_id: number | null; expires_at: number | null }>(
            "SELECT token, holder_id, expires_at FROM leases WHERE repo_id = ? AND issue = ?",
          )
          .get(REPO.repoId, issue)!;
        expect(row.token).toBe(Math.max(...history.map((h) => h.token ?? 0)));
        expect(row.token).toBe(tokens.length);
      }
    } finally {
      await ledger.close();
    }
  });

  it("lease events: positions 1..n and the installation's seq 1..n in the same order, though each process remembers its own last numbers", async () => {
    const ledger = new SqliteLedger(file);
    try {
      const events = [];
      for (let page = await ledger.eventsAfter(0); page.length > 0; page = await ledger.eventsAfter(page.at(-1)!.pos)) events.push(...page);
      // Every new tenure wrote one, so there are at least as many as tenures.
      expect(events.length).toBeGreaterThanOrEqual(reports.flatMap((r) => r.tenures).length);
      expect(events.map((e) => e.pos)).toEqual(events.map((_, i) => i + 1));
      expect(events.map((e) => [e.installation, e.event.seq])).toEqual(events.map((_, i) => [0, i + 1]));
    } finally {
      await ledger.close();
    }
  });

  it("the history replays to the final state, every outcome consistent", async () => {
    const ledger = new SqliteLedger(file);
    try {
      const opsInHistory = reports.flatMap((r) => Object.entries(r.outcomes)).reduce((a, [, n]) => a + n, 0);
      let rows = 0;
      for (const issue of ISSUES) {
        const history = await ledger.history({ repoId: REPO.repoId, issue }, 1_000_000_000);
        rows += history.length;
        const end = replay(history);
        // The last acquire/release/expire names who holds the row now.
        const last = history.filter((h) => ["acquire:acquired", "release:released", "force_release:released", "expire:expired"].includes(`${h.op}:${h.outcome}`)).at(-1)!;
        const row = ledger.db
          .prepare<[number, number], { token: number; holder_id: number | null; expires_at: number | null }>(
            "SELECT token, holder_id, expires_at FROM leases WHERE repo_id = ? AND issue = ?",
          )
          .get(REPO.repoId, issue)!;
        expect(row.holder_id).toBe(last.op === "acquire" ? last.holder!.id : null);
        expect({ holderId: row.holder_id, token: row.token }).toEqual({ holderId: end.holderId, token: end.token });
        if (row.holder_id !== null) expect(row.expires_at).toBe(end.expiresAt);
      }
      // One history row per call that was made, none lost, none extra.
      expect(rows).toBe(opsInHistory);
    } finally {
      await ledger.close();
    }
  });
});
