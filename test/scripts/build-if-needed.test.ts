/**
 * scripts/build-if-needed.mjs, `npm start`'s prestart: whether it builds, and
 * the one line it prints saying why. Run in a folder laid out like the
 * project, where a stand-in for tsc records that it ran and writes the
 * build's stamp (or fails as tsc does, with its errors and exit 2): the real
 * compiler is run by the fresh-clone test (test/e2e/fresh-clone.test.ts).
 */
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT } from "../support/server-process.js";

const STAND_IN_TSC = `
const fs = require("node:fs");
fs.appendFileSync("tsc-runs", process.argv.slice(2).join(" ") + "\\n");
if (process.env.TSC_FAILS) {
  process.stdout.write("src/app.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.\\n");
  process.exit(2);
}
fs.mkdirSync("dist/src", { recursive: true });
fs.writeFileSync("dist/src/index.js", "export {};\\n");
`;

const folders: string[] = [];
afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), "issue-leases-build-script-"));
  folders.push(dir);
  const put = (file: string, text: string) => {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  };
  mkdirSync(join(dir, "scripts"));
  copyFileSync(join(ROOT, "scripts/build-if-needed.mjs"), join(dir, "scripts/build-if-needed.mjs"));
  put("src/app.ts", "export const answer = 42;\n");
  put("bench/ledger.ts", "export {};\n");
  put("test/support/payloads.ts", "export {};\n");
  put("tsconfig.json", "{}\n");
  put("tsconfig.build.json", "{}\n");
  put("node_modules/typescript/bin/tsc", STAND_IN_TSC);
  put("node_modules/typescript/package.json", '{"type": "commonjs"}\n');
  // Every file as old as a clone's: an hour ago.
  const old = new Date(Date.now() - 3_600_000);
  for (const file of ["scripts/build-if-needed.mjs", "src/app.ts", "bench/ledger.ts", "test/support/payloads.ts", "tsconfig.json", "tsconfig.build.json"]) {
    utimesSync(join(dir, file), old, old);
  }
  return dir;
}

function buildIfNeeded(cwd: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, ["scripts/build-if-needed.mjs"], { cwd, env: { PATH: process.env.PATH ?? "", ...env } }, (error, stdout, stderr) =>
      done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const tscRuns = (dir: string) => (existsSync(join(dir, "tsc-runs")) ? readFileSync(join(dir, "tsc-runs"), "utf8").trim().split("\n") : []);

describe("npm start's build", () => {
  it("says it is compiling, and why, when dist/ is missing; says nothing when dist/ is fresh", async () => {
    const dir = project();
    const first = await buildIfNeeded(dir);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe("issue-leases: compiling the TypeScript into dist/ (no build yet: dist/ is missing)...\n");
    expect(tscRuns(dir)).toEqual(["-p tsconfig.build.json"]);

    const again = await buildIfNeeded(dir);
    expect(again).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(tscRuns(dir)).toHaveLength(1);
  });

  it("names the file that changed since the last build", async () => {
    const dir = project();
    await buildIfNeeded(dir);
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(dir, "src/app.ts"), later, later);
    const stale = await buildIfNeeded(dir);
    expect(stale.code).toBe(0);
    expect(stale.stderr).toBe("issue-leases: compiling the TypeScript into dist/ (src/app.ts changed since the last build)...\n");
    expect(tscRuns(dir)).toHaveLength(2);
  });

  it("a failing compile exits with tsc's status, its errors shown and no stack of the script, and leaves dist/ to build next time", async () => {
    const dir = project();
    const failed = await buildIfNeeded(dir, { TSC_FAILS: "1" });
    expect(failed.code).toBe(2);
    expect(failed.stdout).toContain("error TS2322");
    expect(failed.stderr).toBe("issue-leases: compiling the TypeScript into dist/ (no build yet: dist/ is missing)...\n");
    const retried = await buildIfNeeded(dir);
    expect(retried.code).toBe(0);
    expect(tscRuns(dir)).toHaveLength(2);
  });

  it("in a production install (no TypeScript, no sources: the container image) runs the deployed dist/, or says how to get one", async () => {
    const dir = project();
    await buildIfNeeded(dir);
    rmSync(join(dir, "node_modules/typescript"), { recursive: true });
    rmSync(join(dir, "src"), { recursive: true });
    rmSync(join(dir, "bench"), { recursive: true });
    rmSync(join(dir, "test"), { recursive: true });
    expect(await buildIfNeeded(dir)).toEqual({ code: 0, stdout: "", stderr: "" });

    rmSync(join(dir, "dist"), { recursive: true });
    const missing = await buildIfNeeded(dir);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      "issue-leases: dist/ is missing and TypeScript is not installed to build it: run `npm ci && npm run build` with the dev dependencies, or deploy the built dist/\n",
    );
    expect(tscRuns(dir)).toHaveLength(1);
  });
});
