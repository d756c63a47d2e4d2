/**
 * How an operator starts the CLI: the package's bin after `npm ci`, and the
 * `.env` beside the app, read as Probot reads it.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { ROOT, runBuiltCli, runProcess } from "../support/cli-process.js";

const cli = (args: string[], cwd: string, env?: Record<string, string>) => runBuiltCli(args, cwd, env);

let dir: string;

beforeAll(async () => {
  execFileSync(process.execPath, ["scripts/build-if-needed.mjs"], { cwd: ROOT, stdio: "pipe" });
  dir = await mkdtemp(join(tmpdir(), "issue-leases-env-"));
  // The app's database, named only by the .env beside it (relative to that directory, as the app reads it).
  await new SqliteLedger(join(dir, "from-dotenv.db")).close();
  await new SqliteLedger(join(dir, "from-flag.db")).close();
  await writeFile(join(dir, ".env"), "# as in .env.example\nDATABASE_URL=./from-dotenv.db\nLOG_LEVEL=warn\n");
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the package's bin", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> };
  const bin = join(ROOT, pkg.bin["issue-leases"]!);

  it("is a committed file with its execute bit, not the build's output", () => {
    expect(pkg.bin["issue-leases"]).not.toMatch(/^dist\//);
    expect(statSync(bin).mode & 0o111).not.toBe(0);
    // The bit a fresh clone gets is the one in git's index, not this tree's.
    expect(execFileSync("git", ["ls-files", "-s", pkg.bin["issue-leases"]!], { cwd: ROOT, encoding: "utf8" })).toMatch(/^100755 /);
  });

  it("runs as a program (shebang and execute bit) and prints the operator commands under their heading", async () => {
    const r = await runProcess(bin, ["--help"], dir);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Operator commands (read the database directly):\n  list ");
    expect(r.stdout).toMatch(/^ {2}backup FILE/m);
    expect(r.stdout).toMatch(/^ {2}restore BACKUP/m);
  });
});

describe(".env", () => {
  it("names the database doctor checks, and the report names that file", async () => {
    const r = await cli(["doctor"], dir);
    expect(r.stdout).toContain(`database  ${join(dir, "from-dotenv.db")} answers`);
    expect(r.code).toBe(0);
  });

  it("wins over the environment, as in Probot, and --database wins over both", async () => {
    const env = { DATABASE_URL: join(dir, "elsewhere.db") };
    expect((await cli(["doctor"], dir, env)).stdout).toContain(`${join(dir, "from-dotenv.db")} answers`);
    const flagged = await cli(["doctor", "--database", "./from-flag.db"], dir, env);
    expect(flagged.stdout).toContain(`${join(dir, "from-flag.db")} answers`);
  });

  it("is read from the current directory only: elsewhere the default file is checked", async () => {
    const other = await mkdtemp(join(tmpdir(), "issue-leases-noenv-"));
    try {
      const r = await cli(["doctor"], other);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(`no database at ./data/leases.db`);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });
});
