/**
 * `.env.example` lists every environment variable the app reads (the manual
 * says so, and a newcomer copies it to `.env`): each name read in src/ is on
 * a line of its own, `NAME=` or `# NAME=`, so that it cannot drift. Names are
 * collected from the source as src/ reads them: `process.env.NAME`,
 * `env.NAME` and `io.env.NAME`, `env["NAME"]`, and the small parsers that
 * take a name (`count(env, "NAME", …)`, `whole(…)`, `wholeNumber(…)`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/server-process.js";

/**
 * Read in src/ but not the app's settings, each documented where its reader is:
 * none of them belongs in a server's `.env`.
 */
const NOT_THE_APPS: Record<string, string> = {
  // Node's and npm's convention, not a setting of the app; .env.example mentions it at WEBHOOK_SECRET.
  NODE_ENV: ".env.example",
  // Set by the test runner: the app then leaves signals to the tests.
  VITEST: "src/app.ts",
  // `issue-leases agent run` sets these for the command it runs, and `agent verify` reads them back (the manual, "agent run").
  ISSUE_LEASES_TOKEN: "docs/bots-and-agents/agent-cli.md",
  ISSUE_LEASES_REF: "docs/bots-and-agents/agent-cli.md",
  ISSUE_LEASES_INSTANCE: "docs/bots-and-agents/agent-cli.md",
};

/** The Action reads the runner's environment (GITHUB_*, RUNNER_NAME, INPUT_*), documented in action.yml: not the server's. */
const NOT_THE_SERVER = ["src/action/"];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

/** Every variable name a source text reads, by the forms src/ uses. */
export function variablesRead(text: string): string[] {
  const forms = [
    /\benv\.([A-Z][A-Z0-9_]*)\b/g,
    /\benv\[\s*["'`]([A-Z][A-Z0-9_]*)["'`]\s*\]/g,
    // A parser given the environment and a name: count(env, "API_RATE_LIMIT", …).
    /\(\s*(?:[\w.]*\.)?env\s*,\s*["'`]([A-Z][A-Z0-9_]*)["'`]/g,
  ];
  return forms.flatMap((form) => [...text.matchAll(form)].map((m) => m[1]!));
}

function readInSrc(): Map<string, string> {
  const where = new Map<string, string>();
  for (const file of sources(join(ROOT, "src"))) {
    const path = relative(ROOT, file);
    if (NOT_THE_SERVER.some((dir) => path.startsWith(dir))) continue;
    for (const name of variablesRead(readFileSync(file, "utf8"))) if (!where.has(name)) where.set(name, path);
  }
  return where;
}

describe(".env.example", () => {
  const example = readFileSync(join(ROOT, ".env.example"), "utf8");
  const listed = new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!));
  const read = readInSrc();

  it("finds the variables by each form src/ reads them in", () => {
    expect(variablesRead('process.env.PORT; io.env.GH_TOKEN; env["A_B"]; count(env, "API_RATE_LIMIT", 1); whole(o.env, "X_Y", 2)')).toEqual([
      "PORT",
      "GH_TOKEN",
      "A_B",
      "API_RATE_LIMIT",
      "X_Y",
    ]);
    // The parsers' names are among those found in src/: the check is not blind to them.
    for (const name of ["API_RATE_LIMIT", "EVENTS_POLL_MS", "GITHUB_CONTENT_PER_MINUTE", "DATABASE_URL"]) expect(read.has(name), name).toBe(true);
  });

  it("lists every variable the app reads", () => {
    const missing = [...read].filter(([name]) => !(name in NOT_THE_APPS) && !listed.has(name)).map(([name, file]) => `${name} (${file})`);
    expect(missing).toEqual([]);
  });

  it("names no variable the app does not read, and each one left out is documented where it says", () => {
    expect([...listed].filter((name) => !read.has(name) && !KNOWN_ELSEWHERE.has(name))).toEqual([]);
    for (const [name, doc] of Object.entries(NOT_THE_APPS)) {
      expect(read.has(name), `${name} is still read in src/`).toBe(true);
      expect(readFileSync(join(ROOT, doc), "utf8"), `${name} in ${doc}`).toContain(name);
    }
  });
});

/** Listed but read outside src/: by Probot itself (its setup and its config), for the operator to set. */
const KNOWN_ELSEWHERE = new Set(["NO_SMEE_SETUP", "GH_ORG"]);
