/**
 * The real app as GitHub runs it: `npm start` (Probot's `run` behind our checks) in a child
 * process, talking HTTP to a fake GitHub, receiving signed webhook
 * deliveries. For end-to-end and fault tests (kill -9, SIGTERM, restarts on
 * the same database file).
 *
 * Probot's retry and throttling plugins are on, as in production, so writes
 * are spaced about a second apart per installation: tests wait for effects
 * by polling the fake with `waitFor`, never by sleeping a fixed time.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createHash, generateKeyPairSync, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { sign } from "@octokit/webhooks-methods";
import { appEnvFor, defaultLayout, type Layout } from "./fake-github/layout.js";

/** The repository: two folders up from here, or three when this runs compiled from dist/ (a benchmark). */
const UP_TWO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const ROOT = existsSync(join(UP_TWO, "package.json")) ? UP_TWO : resolve(UP_TWO, "..");
export const WEBHOOK_SECRET = "e2e-secret";
// What `npm start` runs: the environment checks, then Probot's `run` with the app and a redacting logger.
export const LAUNCHER = "./dist/src/startup/start.js";

export interface ServerOptions {
  /** Where GitHub is: the fake (or a proxy in front of it), served over http at `host`, in its layout (default the fakes' default). */
  fake: { host: string; layout?: Layout };
  /** SQLite file of the ledger; restarting on the same file continues its state. */
  dbFile: string;
  /** Extra or overriding environment variables. */
  env?: Record<string, string>;
  port?: number;
  /** Default 1, the fake's default app id. */
  appId?: number;
}

export interface ServerProcess {
  url: string;
  port: number;
  pid: number;
  /** Signs `payload` with `secret` (default the server's) and POSTs it as a delivery; resolves to the HTTP status. */
  send(name: string, payload: unknown, opts?: { id?: string; secret?: string }): Promise<number>;
  /** GET /health: status and parsed JSON body. */
  health(): Promise<{ status: number; body: Record<string, any> }>;
  kill(signal?: NodeJS.Signals): void;
  /** Settles when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** Everything the process wrote to stdout (its JSON log lines) so far. */
  stdout(): string;
  /** SIGKILLs the process if it still runs and waits for it to exit. */
  stop(): Promise<void>;
}

// ---------------------------------------------------------------------------
// Build once per test run

let built: Promise<void> | undefined;

/**
 * Runs `scripts/build-if-needed.mjs` (dist/ is absent on a clean clone).
 * Test files run in parallel processes, so the build is serialised by a lock
 * directory: two concurrent `tsc` runs would write dist/ over each other.
 */
export function ensureBuilt(): Promise<void> {
  built ??= withLock(join(tmpdir(), `issue-leases-build-${createHash("sha1").update(ROOT).digest("hex").slice(0, 12)}.lock`), () =>
    new Promise<void>((done, fail) => {
      execFile(process.execPath, ["scripts/build-if-needed.mjs"], { cwd: ROOT }, (error, stdout, stderr) =>
        error ? fail(new Error(`build failed: ${error.message}\n${stdout}\n${stderr}`)) : done(),
      );
    }),
  );
  return built;
}

async function withLock<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(dir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      // A lock left by a test run that was killed mid-build.
      try {
        if (Date.now() - statSync(dir).mtimeMs > 120_000) rmSync(dir, { recursive: true, force: true });
      } catch {
        // Released meanwhile.
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the build lock ${dir}`);
      await sleep(200);
    }
  }
  try {
    return await work();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------
// Credentials and ports

let key: string | undefined;

/** An RSA key for the app's JWTs; the fake accepts any, but Probot must be able to sign with it. */
export function privateKey(): string {
  key ??= generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
  }).privateKey;
  return key;
}

export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** The child's environment: nothing of the test runner's (VITEST would turn off signal handling), nothing of a developer's .env-style settings. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "TMPDIR", "LANG", "TZ"]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

// ---------------------------------------------------------------------------
// Processes

const children = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

/** Starts the app against GitHub at `githubHost`, and resolves once GET /health answers 200. */
export async function startServer(opts: ServerOptions): Promise<ServerProcess> {
  await ensureBuilt();
  for (let attempt = 1; ; attempt++) {
    const port = opts.port ?? (await freePort());
    const env = {
      ...baseEnv(),
      APP_ID: String(opts.appId ?? 1),
      PRIVATE_KEY: privateKey(),
      WEBHOOK_SECRET,
      ...appEnvFor(opts.fake.host, opts.fake.layout ?? defaultLayout()),
      DATABASE_URL: opts.dbFile,
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      LOG_FORMAT: "json",
      SWEEP_INTERVAL_MS: "60000",
      ...opts.env,
    };
    try {
      return await launch(env, port, "/health");
    } catch (error) {
      // Another process took the free port between our probe and the listen.
      if (opts.port === undefined && attempt < 3 && /EADDRINUSE|already in use/.test(String(error))) continue;
      throw error;
    }
  }
}

/** `npm start` before the app is registered: no APP_ID, no key. Resolves once Probot's setup page answers. */
export async function startSetupServer(env: Record<string, string> = {}): Promise<ServerProcess> {
  await ensureBuilt();
  const port = await freePort();
  return launch(
    {
      ...baseEnv(),
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      LOG_FORMAT: "json",
      // Setup mode otherwise asks smee.io for a webhook channel: no network in tests.
      NO_SMEE_SETUP: "true",
      ...env,
    },
    port,
    "/probot",
  );
}

async function launch(env: Record<string, string>, port: number, readyPath: string): Promise<ServerProcess> {
  const child = spawn(process.execPath, [LAUNCHER], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    child.once("exit", (code, signal) => {
      children.delete(child);
      done({ code, signal });
    });
  });
  let gone = false;
  void exited.then(() => (gone = true));
  const url = `http://127.0.0.1:${port}`;

  const server: ServerProcess = {
    url,
    port,
    pid: child.pid!,
    async send(name, payload, o = {}) {
      const body = JSON.stringify(payload);
      const res = await fetch(`${url}/api/github/webhooks`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": name,
          "x-github-delivery": o.id ?? randomUUID(),
          "x-hub-signature-256": await sign(o.secret ?? env.WEBHOOK_SECRET ?? WEBHOOK_SECRET, body),
        },
        body,
      });
      await res.arrayBuffer();
      return res.status;
    },
    async health() {
      const res = await fetch(`${url}/health`);
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    },
    kill(signal = "SIGTERM") {
      if (!gone) child.kill(signal);
    },
    exited,
    stderr: () => err,
    stdout: () => out,
    async stop() {
      if (!gone) child.kill("SIGKILL");
      await exited;
    },
  };

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (gone) {
      const { code, signal } = await exited;
      throw new Error(`the server exited (code ${code}, signal ${signal}) before answering ${readyPath}:\n${err}\n${out}`);
    }
    try {
      const res = await fetch(`${url}${readyPath}`);
      await res.arrayBuffer();
      if (res.status === 200) return server;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`the server did not answer ${readyPath} within 30 s:\n${err}\n${out}`);
    }
    await sleep(100);
  }
}

// ---------------------------------------------------------------------------

export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/**
 * Polls `check` until it returns a value other than false/undefined/null (or
 * stops throwing), and returns that value. On timeout, fails with `what` and
 * the last error.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | false | null | undefined | Promise<T | false | null | undefined>,
  timeoutMs = 30_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== false && value !== null && value !== undefined) return value;
      last = undefined;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message ?? String(last)}` : ""}`);
    }
    await sleep(everyMs);
  }
}

/** The server's JSON log lines at `minLevel` or above (pino: 40 warn, 50 error, 60 fatal). */
export function logLines(server: ServerProcess, minLevel = 50): Array<Record<string, any>> {
  const lines: Array<Record<string, any>> = [];
  for (const line of server.stdout().split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      const entry = JSON.parse(line) as Record<string, any>;
      if (typeof entry.level === "number" && entry.level >= minLevel) lines.push(entry);
    } catch {
      // A line cut by a kill -9.
    }
  }
  return lines;
}
