/**
 * The Quick start as a newcomer runs it: a folder holding what a clone holds
 * (the tracked files, no dist/, no data/, no .env), the dependencies
 * installed (node_modules linked to this checkout's), and `npm start`
 * exactly as the README writes it, with only the variables the Quick start
 * names (GitHub is the fake, reached as GitHub Enterprise Server).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeGitHub } from "../support/fake-github.js";
import { freePort, privateKey, ROOT, sleep } from "../support/server-process.js";

/**
 * A folder with what `git clone` of this checkout would give once its work is
 * committed (the files git tracks or would track, as they are now: not
 * dist/, data/ nor .env, which .gitignore keeps out), and node_modules.
 */
export function freshClone(): string {
  const dir = mkdtempSync(join(tmpdir(), "issue-leases-clone-"));
  const tracked = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" }).split("\0").filter(Boolean);
  for (const file of tracked) {
    const from = join(ROOT, file);
    // Deleted in the working tree and not committed yet: not in a clone of it either.
    if (!existsSync(from)) continue;
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(from, join(dir, file));
  }
  symlinkSync(realpathSync(join(ROOT, "node_modules")), join(dir, "node_modules"));
  return dir;
}

interface Started {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** `npm start` in `cwd`, in a process group of its own (npm runs node through a shell: the group is what to stop). */
function npmStart(cwd: string, env: Record<string, string>): Started {
  const child = spawn("npm", ["start"], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (out += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (out += c));
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  return { child, output: () => out, exited };
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // Gone already.
  }
}

/** GET /health until it answers 200 (its body), failing at once with the output if npm start exits first. */
async function untilHealthy(app: Started, port: number, timeoutMs: number): Promise<{ database: boolean }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (app.child.exitCode !== null || app.child.signalCode !== null) throw new Error(`npm start exited (${app.child.exitCode ?? app.child.signalCode}):\n${app.output()}`);
    try {
      const res = await fetch(`http://localhost:${port}/health`);
      const body = (await res.json()) as { database: boolean };
      if (res.status === 200) return body;
    } catch {
      // Still building, or not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`GET /health did not answer within ${timeoutMs} ms:\n${app.output()}`);
    await sleep(250);
  }
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

describe("A fresh clone", () => {
  it("with DATABASE_URL unset, `npm start` builds, saying so, starts and creates ./data/leases.db", async () => {
    const dir = freshClone();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const fake = await startFakeGitHub();
    cleanups.push(() => fake.close());
    expect(existsSync(join(dir, "dist"))).toBe(false);
    expect(existsSync(join(dir, "data"))).toBe(false);
    // The key as GitHub's settings page downloads it.
    writeFileSync(join(dir, "private-key.pem"), privateKey());
    const port = await freePort();
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      APP_ID: "1",
      PRIVATE_KEY_PATH: "./private-key.pem",
      WEBHOOK_SECRET: "a-fresh-clone-secret",
      PORT: String(port),
      ...fake.appEnv(),
    };
    const app = npmStart(dir, env);
    cleanups.push(async () => {
      signalGroup(app.child, "SIGKILL");
      await app.exited;
    });

    // The first start compiles the TypeScript (dist/ is missing) before it listens.
    const health = await untilHealthy(app, port, 240_000);
    expect(health.database).toBe(true);
    expect(existsSync(join(dir, "data/leases.db"))).toBe(true);
    // It said what it was doing while tsc ran.
    expect(app.output()).toContain("issue-leases: compiling the TypeScript into dist/ (no build yet: dist/ is missing)...\n");

    signalGroup(app.child, "SIGTERM");
    await app.exited;
  }, 300_000);
});
