/**
 * `issue-leases backup` and `restore` as an operator runs them (the built CLI
 * in a child process), against a SQLite ledger served by this process as the
 * app serves it (the `.serving` lock held, operations applied meanwhile).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { SQLITE_MIGRATIONS } from "../../src/ledger/sqlite/migrations.js";
import type { Holder, IssueKey } from "../../src/ledger/leases/lease-types.js";
import { ROOT, runBuiltCli } from "../support/cli-process.js";

const alice: Holder = { id: 11, login: "alice" };
const bob: Holder = { id: 12, login: "bob" };
const carol: Holder = { id: 13, login: "carol" };
const issue = (n: number): IssueKey => ({ repoId: 101, repo: "octo-org/widgets", issue: n });

const cli = (args: string[], env: Record<string, string> = {}) => runBuiltCli(args, dir, env);

let dir: string;
let clock = Date.parse("2026-12-01T12:00:00Z");
const tick = () => (clock += 1000);

beforeAll(async () => {
  execFileSync(process.execPath, ["scripts/build-if-needed.mjs"], { cwd: ROOT, stdio: "pipe" });
  dir = await mkdtemp(join(tmpdir(), "issue-leases-backup-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** One more tenure on the issue: whoever holds it releases it, and `next` claims it. Returns the new token. */
async function nextTenure(ledger: SqliteLedger, n: number, next: Holder): Promise<number> {
  const current = await ledger.current(issue(n), clock);
  if (current) await ledger.release(issue(n), current.holder, tick());
  const r = await ledger.acquire(issue(n), next, null, tick());
  if (r.outcome !== "acquired") throw new Error(`not acquired: ${r.outcome}`);
  return r.lease.token;
}

describe("backup", () => {
  it("copies a consistent snapshot while the app serves the file and applies operations", async () => {
    const file = join(dir, "busy.db");
    const app = new SqliteLedger(file, { serve: true });
    let ops = 0;
    let stop = false;
    // The app's deliveries: tenures on ten issues in turn, yielding to the event loop between them.
    const writer = (async () => {
      for (let i = 0; !stop; i++) {
        await nextTenure(app, 1 + (i % 10), i % 2 ? alice : bob);
        ops++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    while (ops < 50) await new Promise((r) => setTimeout(r, 5));
    const before = ops;
    const r = await cli(["backup", "busy-backup.db", "--database", file]);
    const during = ops - before;
    stop = true;
    await writer;
    await app.close();

    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(during).toBeGreaterThan(0);
    const backup = join(dir, "busy-backup.db");
    expect(existsSync(`${backup}-wal`)).toBe(false);
    const db = new Database(backup, { readonly: true, fileMustExist: true });
    try {
      expect(db.pragma("user_version", { simple: true })).toBe(SQLITE_MIGRATIONS.length);
      expect(db.pragma("journal_mode", { simple: true })).toBe("delete");
      expect(db.pragma("quick_check", { simple: true })).toBe("ok");
      const rows = db
        .prepare(
          `SELECT l.issue, l.token, (SELECT max(h.token) FROM history h WHERE h.repo_id = l.repo_id AND h.issue = l.issue) AS top
           FROM leases l`,
        )
        .all() as { issue: number; token: number; top: number }[];
      expect(rows).toHaveLength(10);
      for (const row of rows) expect(row, `issue ${row.issue}`).toEqual({ ...row, top: row.token });
    } finally {
      db.close();
    }
  });

  it("refuses to replace a file unless --force, and writes nothing on refusal", async () => {
    const file = join(dir, "small.db");
    const app = new SqliteLedger(file);
    await nextTenure(app, 1, alice);
    await app.close();
    const target = join(dir, "not-a-backup.txt");
    execFileSync("sh", ["-c", `echo keep > '${target}'`]);

    const refused = await cli(["backup", target, "--database", file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/not-a-backup\.txt exists: choose another name, or add --force/);
    expect(readFileSync(target, "utf8")).toBe("keep\n");

    const forced = await cli(["backup", target, "--force", "--database", file]);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(/schema version \d+, 1 issue rows, highest token 1$/m);
  });

  it("makes the destination's folder, as the manual's `backup backups/leases-$(date +%F).db` (docs/operators/operator-cli.md) needs on a fresh clone", async () => {
    const file = join(dir, "for-a-folder.db");
    const app = new SqliteLedger(file);
    await nextTenure(app, 1, alice);
    await app.close();

    const r = await cli(["backup", "backups/2026/leases-2026-12-01.db", "--database", file]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/schema version \d+, 1 issue rows, highest token 1$/m);
    expect(existsSync(join(dir, "backups/2026/leases-2026-12-01.db"))).toBe(true);

    // A folder that cannot be made (a file is in the way): one line, nothing written.
    writeFileSync(join(dir, "in-the-way"), "a file\n");
    const blocked = await cli(["backup", "in-the-way/leases.db", "--database", file]);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr.trim()).toMatch(/^issue-leases: cannot make the folder .*in-the-way to write leases\.db in \(a file is in the way: E[A-Z]+\)$/);
  });

  it("refuses, even with --force, to write over the database itself or its files, which it leaves as they were", async () => {
    const file = join(dir, "itself.db");
    const app = new SqliteLedger(file);
    await nextTenure(app, 1, alice);
    await app.close();
    const before = readFileSync(file);
    symlinkSync(file, join(dir, "itself-link.db"));
    for (const target of [file, "itself.db-wal", "itself-link.db"]) {
      const r = await cli(["backup", target, "--force", "--database", file]);
      expect(r.code, target).toBe(2);
      expect(r.stderr.trim()).toMatch(/^issue-leases: .* is the database itself \(or one of its files\): back it up to another file$/);
    }
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it("prints the pg_dump command for PostgreSQL, without the password, and exits 2", async () => {
    const r = await cli(["backup", "leases.dump", "--database", "postgres://ops:s3cret@db.example:5432/leases?password=s3cret"], {
      DATABASE_SCHEMA: "issue_leases",
    });
    expect(r.code).toBe(2);
    expect(r.stdout.trim()).toBe("pg_dump --format=custom --schema=issue_leases --file=leases.dump postgres://ops@db.example:5432/leases");
    expect(r.stdout + r.stderr).not.toContain("s3cret");
  });
});

describe("restore", () => {
  it("never hands out a token twice: the next tenure of every issue is above every token issued before", async () => {
    const file = join(dir, "app.db");
    let app = new SqliteLedger(file, { serve: true });
    for (const n of [1, 2, 3]) {
      await nextTenure(app, n, alice);
      await nextTenure(app, n, bob);
    }
    expect((await cli(["backup", "old.db", "--database", file])).code).toBe(0);

    // After the backup: three more tenures on each issue, and an issue the backup never saw.
    let issued = 0;
    for (const n of [1, 2, 3, 4]) for (const h of [carol, alice, bob]) issued = Math.max(issued, await nextTenure(app, n, h));
    expect(issued).toBe(5);

    const refused = await cli(["restore", "old.db", "--database", file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/an app is serving .*app\.db: stop it first/);

    await app.close();
    const r = await cli(["restore", "old.db", "--database", file]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Token floor 1002");
    const aside = /kept at (\S+)\.$/m.exec(r.stdout)![1]!;
    expect(existsSync(aside)).toBe(true);

    app = new SqliteLedger(file, { serve: true });
    try {
      // The backup's state is back: bob holds issues 1-3 with token 2, issue 4 is unknown.
      expect((await app.listAll(clock)).map((l) => [l.issue, l.holder.login, l.token])).toEqual([
        [1, "bob", 2],
        [2, "bob", 2],
        [3, "bob", 2],
      ]);
      // The floor is for new tenures: bob's live one carries on with the token he holds.
      const again = await app.acquire(issue(1), bob, null, tick());
      expect(again).toMatchObject({ outcome: "acquired", newTenure: false, lease: { token: 2 } });
      const history = await app.history({ repoId: 101, issue: 1 });
      expect(history.at(-2)).toMatchObject({ op: "restore", outcome: "restored", actor: { id: 0, login: "operator" } });
      for (const n of [1, 2, 3, 4]) expect(await nextTenure(app, n, carol), `issue ${n}`).toBeGreaterThan(issued);
    } finally {
      await app.close();
    }
  });

  it("keeps the floor when the database replaced is lost, with the gap given, on an issue the backup never saw", async () => {
    const file = join(dir, "lost.db");
    let app = new SqliteLedger(file, { serve: true });
    await nextTenure(app, 1, alice);
    expect((await cli(["backup", "lost-backup.db", "--database", file])).code).toBe(0);
    let issued = 0;
    for (const h of [bob, carol, alice]) issued = Math.max(issued, await nextTenure(app, 7, h), await nextTenure(app, 1, h));
    await app.close();
    for (const f of [file, `${file}-wal`, `${file}-shm`]) await rm(f, { force: true });

    const usage = await cli(["restore", "lost-backup.db", "--token-floor", "0", "--database", file]);
    expect(usage.code).toBe(2);
    const r = await cli(["restore", "lost-backup.db", "--token-gap", "5", "--database", file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("There was no database to replace.");
    expect(r.stdout).toContain("Token floor 6");

    app = new SqliteLedger(file, { serve: true });
    try {
      for (const n of [1, 7]) expect(await nextTenure(app, n, bob), `issue ${n}`).toBeGreaterThan(issued);
    } finally {
      await app.close();
    }
  });
});

describe("the files backup and restore write", () => {
  it("are readable by their owner only: the backup, the restored ledger and the one kept aside", async () => {
    const mode = (path: string) => statSync(path).mode & 0o777;
    const file = join(dir, "private", "leases.db");
    const app = new SqliteLedger(file, { serve: true });
    await nextTenure(app, 1, alice);
    await app.close();

    expect((await cli(["backup", "private-backups/leases.db", "--database", file])).code).toBe(0);
    expect(mode(join(dir, "private-backups"))).toBe(0o700);
    expect(mode(join(dir, "private-backups/leases.db"))).toBe(0o600);

    const r = await cli(["restore", "private-backups/leases.db", "--database", file]);
    expect(r.stderr).toBe("");
    const aside = /kept at (\S+)\.$/m.exec(r.stdout)![1]!;
    expect({ restored: mode(file), aside: mode(aside) }).toEqual({ restored: 0o600, aside: 0o600 });
  });
});
