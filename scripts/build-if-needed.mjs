// `npm start`, the benchmarks and the CLI's tests run compiled JavaScript.
// Build when dist/ is missing or older than any source file, so that a fresh
// clone needs only `npm ci && npm start`: first the client package
// (packages/client/dist/, which the app imports as @issue-leases/client),
// then the app.
//
// `--prepare` is npm's `prepare` (run by `npm ci`, `npm install` in a clone,
// and `npm install github:…` before packing): it builds the same way, and
// does nothing where there is nothing to build with, since a production
// install (`npm ci --omit=dev`: no TypeScript) or a container layer that
// installs before the sources are copied must not fail.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** The most recently modified file under `dir`: [mtime, path]. */
function newest(dir) {
  let found = [0, dir];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    const candidate = e.isDirectory() ? newest(p) : [statSync(p).mtimeMs, p];
    if (candidate[0] > found[0]) found = candidate;
  }
  return found;
}

const preparing = process.argv.includes("--prepare");
const tsc = "node_modules/typescript/bin/tsc";
if (preparing && (!existsSync(tsc) || !existsSync("src") || !existsSync("packages/client/src"))) {
  process.stderr.write("issue-leases: prepare: no TypeScript or no sources here, nothing to build\n");
  process.exit(0);
}

/** The file of each build whose date is when that build began (see build below). */
const stamp = "dist/src/index.js";
const clientStamp = "packages/client/dist/index.js";

const mtimeOf = (path) => [statSync(path).mtimeMs, path];

/** Why packages/client/dist/ must be built, or null when it is fresh. */
function clientStaleness() {
  if (!existsSync(clientStamp)) return "no build yet: packages/client/dist/ is missing";
  const built = statSync(clientStamp).mtimeMs;
  const [mtime, path] = [newest("packages/client/src"), mtimeOf("packages/client/tsconfig.json"), mtimeOf("packages/client/package.json")].reduce(
    (a, b) => (b[0] > a[0] ? b : a),
  );
  return mtime > built ? `${path} changed since the last build` : null;
}

// A production install (`npm ci --omit=dev`, as in the container image) has
// neither TypeScript nor the sources: it runs the dist/ it was deployed with.
if (!existsSync("node_modules/typescript") || !existsSync("src")) {
  if (existsSync(stamp)) process.exit(0);
  process.stderr.write(
    "issue-leases: dist/ is missing and TypeScript is not installed to build it: " +
      "run `npm ci && npm run build` with the dev dependencies, or deploy the built dist/\n",
  );
  process.exit(1);
}

/** Why dist/ must be built, or null when it is fresh. */
function staleness() {
  if (!existsSync(stamp)) return "no build yet: dist/ is missing";
  const built = statSync(stamp).mtimeMs;
  const [mtime, path] = [
    newest("src"),
    newest("bench"),
    newest("scripts"),
    // The benchmarks compile the fake GitHub and the payload builders from here (tsconfig.build.json).
    newest("test/support"),
    mtimeOf("tsconfig.json"),
    mtimeOf("tsconfig.build.json"),
  ].reduce((a, b) => (b[0] > a[0] ? b : a));
  return mtime > built ? `${path} changed since the last build` : null;
}

// Test files run in parallel processes and may each ask for a build: two tsc
// runs writing dist/ at once could let one read the other's half-written file.
// One builds, under a lock directory; the others wait, then find dist/ fresh.
const lock = join(tmpdir(), `issue-leases-build-${createHash("sha1").update(resolve(".")).digest("hex").slice(0, 12)}.script.lock`);

function acquire() {
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      return;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      try {
        // Left by a build that was killed.
        if (Date.now() - statSync(lock).mtimeMs > 120_000) rmSync(lock, { recursive: true, force: true });
      } catch {
        // Released meanwhile.
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the build lock ${lock}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
}

/** Compiles `project`, saying why first; its exit status, 0 when it built (tsc has printed any errors). */
function build(project, stampFile, why, what) {
  // tsc prints nothing until it is done: without this line a first `npm start` looks hung.
  process.stderr.write(`issue-leases: compiling the TypeScript into ${what} (${why})...\n`);
  const started = new Date();
  try {
    execFileSync(process.execPath, [tsc, "-p", project], { stdio: "inherit" });
  } catch (error) {
    // tsc has printed the errors: a stack of this script would only bury them.
    return typeof error.status === "number" && error.status > 0 ? error.status : 1;
  }
  // Stamped with the build's start, not its end: a source edited while tsc
  // ran may not be in dist/, and must leave it stale for the next run.
  utimesSync(stampFile, started, started);
  return 0;
}

if (clientStaleness() || staleness()) {
  acquire();
  let failed = 0;
  try {
    const clientWhy = clientStaleness();
    if (clientWhy) failed = build("packages/client/tsconfig.json", clientStamp, clientWhy, "packages/client/dist/");
    const why = failed ? null : staleness();
    if (why) failed = build("tsconfig.build.json", stamp, why, "dist/");
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  if (failed) process.exit(failed);
}
