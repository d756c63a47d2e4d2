/**
 * The action's committed bundles are what its sources build to (a change to
 * src/action/, the CLI's run or the client without `npm run build:action`
 * fails here), and action.yml matches the code: the runtime and entries the
 * runner needs, every input the code reads declared, every output it writes
 * declared.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../support/server-process.js";
import { ACTION } from "./actions-runner.js";

const out = mkdtempSync(join(tmpdir(), "issue-leases-action-bundle-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const sources = readdirSync(join(ROOT, "src/action")).map((f) => readFileSync(join(ROOT, "src/action", f), "utf8"));

describe("the action's bundle", () => {
  it("is what scripts/build-action.mjs builds from the sources now (run `npm run build:action` and commit)", async () => {
    await new Promise<void>((done, fail) =>
      execFile(process.execPath, ["scripts/build-action.mjs", out], { cwd: ROOT }, (error, stdout, stderr) =>
        error ? fail(new Error(`${error.message}\n${stdout}${stderr}`)) : done(),
      ),
    );
    const built = readdirSync(out).sort();
    expect(built).toEqual(["main.mjs", "post.mjs"]);
    expect(readdirSync(join(ROOT, "action/dist")).sort()).toEqual(built);
    for (const file of built) {
      expect(readFileSync(join(ROOT, "action/dist", file), "utf8"), `action/dist/${file} is stale`).toBe(readFileSync(join(out, file), "utf8"));
    }
  }, 60_000);

  it("imports nothing but Node's own modules: the runner installs nothing", () => {
    const seen: string[] = [];
    for (const file of ["main.mjs", "post.mjs"]) {
      const text = readFileSync(join(ROOT, "action/dist", file), "utf8");
      const specifiers = [...text.matchAll(/^import .* from "([^"]+)";$/gm), ...text.matchAll(/\bimport\("([^"]+)"\)/g)].map((m) => m[1]!);
      for (const s of specifiers) expect(s, `${file} imports ${s}`).toMatch(/^node:/);
      expect(text).not.toMatch(/\brequire\(/);
      seen.push(...specifiers);
    }
    // main spawns the command and writes the step's files (post, bundled down to what it uses, imports nothing).
    expect(seen).toEqual(expect.arrayContaining(["node:child_process", "node:fs"]));
  });
});

describe("action.yml", () => {
  it("runs the bundles on node24, the post step always", () => {
    expect(ACTION.runs).toEqual({ using: "node24", main: "action/dist/main.mjs", post: "action/dist/post.mjs", "post-if": "always()" });
  });

  it("runs on a Node that has not reached its end of life, the one the bundles are built for", () => {
    // node20's life ended on 2026-04-30: GitHub's runners run such actions on node24 anyway, with a warning.
    const retired = new Set(["node12", "node16", "node20"]);
    expect(retired.has(ACTION.runs.using), `runs.using: ${ACTION.runs.using}`).toBe(false);
    const target = /\btarget: "(node\d+)"/.exec(readFileSync(join(ROOT, "scripts/build-action.mjs"), "utf8"))?.[1];
    expect(target).toBe(ACTION.runs.using);
  });

  it("declares every input the code reads, and reads every input it declares", () => {
    const read = new Set(sources.flatMap((s) => [...s.matchAll(/\binput\(io, "([a-z-]+)"\)/g)].map((m) => m[1]!)));
    // booleanInput and duration take their name as an argument.
    for (const s of sources) for (const m of s.matchAll(/\b(?:booleanInput|duration)\(io, "([a-z-]+)"/g)) read.add(m[1]!);
    expect([...read].sort()).toEqual(Object.keys(ACTION.inputs).sort());
    expect(ACTION.inputs.token!.default).toBe("${{ github.token }}");
    expect(ACTION.inputs.url!.required).toBe(true);
  });

  it("declares every output the code writes", () => {
    const written = new Set(sources.flatMap((s) => [...s.matchAll(/\bsetOutput\(io, "([a-z_]+)"/g)].map((m) => m[1]!)));
    expect([...written].sort()).toEqual(Object.keys(ACTION.outputs).sort());
  });
});
