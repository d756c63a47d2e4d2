/**
 * The table of settings (src/settings/) is the one list of the environment
 * variables: `.env.example` and docs/reference/environment.md are what it
 * renders (`npm run docs:reference`), every name src/ reads is one of its
 * rows, and every row is read (by src/, or by Probot from the environment
 * the launcher hands it). A variable that does not belong in a server's
 * `.env` (Node's NODE_ENV, what `agent run` or the Actions runner sets) is
 * left out of `.env.example` and says in the reference who sets it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { envExample, path as ENV_EXAMPLE } from "../../scripts/reference/env-example.js";
import { environmentReference, path as REFERENCE } from "../../scripts/reference/environment.js";
import { SETTINGS } from "../../src/settings/settings-table.js";
import { ROOT } from "../support/server-process.js";

const FIX = "is out of date with the table of settings (src/settings/): run `npm run docs:reference` and commit the result";

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
    // A reader given the environment and a name: rawValue(env, "API_RATE_LIMIT"), numberSetting(io.env, "X", …).
    /\(\s*(?:[\w.]*\.)?env\s*,\s*["'`]([A-Z][A-Z0-9_]*)["'`]/g,
  ];
  return forms.flatMap((form) => [...text.matchAll(form)].map((m) => m[1]!));
}

/** Each name read in src/, with the first file that reads it. */
function readInSrc(): Map<string, string> {
  const where = new Map<string, string>();
  for (const file of sources(join(ROOT, "src"))) {
    for (const name of variablesRead(readFileSync(file, "utf8"))) if (!where.has(name)) where.set(name, relative(ROOT, file));
  }
  return where;
}

/** The rows for a family of names (`INPUT_<NAME>`): the prefix each member starts with. */
const families = SETTINGS.filter((r) => r.name.endsWith("<NAME>")).map((r) => r.name.replace("<NAME>", ""));
const rows = new Set(SETTINGS.map((r) => r.name));

describe("the table of settings", () => {
  it(".env.example is what the table gives", () => {
    expect(readFileSync(join(ROOT, ENV_EXAMPLE), "utf8"), `${ENV_EXAMPLE} ${FIX}`).toBe(envExample());
  });

  it("docs/reference/environment.md is what the table gives", () => {
    expect(readFileSync(join(ROOT, REFERENCE), "utf8"), `${REFERENCE} ${FIX}`).toBe(environmentReference());
  });

  it("finds the variables by each form src/ reads them in", () => {
    expect(variablesRead('process.env.PORT; io.env.GH_TOKEN; env["A_B"]; rawValue(env, "API_RATE_LIMIT"); numberSetting(o.env, "X_Y", 2)')).toEqual([
      "PORT",
      "GH_TOKEN",
      "A_B",
      "API_RATE_LIMIT",
      "X_Y",
    ]);
    // The settings' readers are among those found in src/: the check is not blind to them.
    const read = readInSrc();
    for (const name of ["API_RATE_LIMIT", "EVENTS_POLL_MS", "GITHUB_CONTENT_PER_MINUTE", "DATABASE_URL", "ISSUE_LEASES_URL", "GITHUB_RUN_ID"]) {
      expect(read.has(name), name).toBe(true);
    }
  });

  it("has a row for every variable src/ reads", () => {
    const missing = [...readInSrc()].filter(([name]) => !rows.has(name) && !families.some((f) => name.startsWith(f))).map(([name, file]) => `${name} (${file})`);
    expect(missing).toEqual([]);
  });

  it("names no variable that nothing reads: each row is read by Probot, or named in src/ (read, by a computed key too, or set for the command `agent run` runs)", () => {
    const read = readInSrc();
    const source = sources(join(ROOT, "src")).map((f) => readFileSync(f, "utf8")).join("\n");
    const named = (name: string) => read.has(name) || source.includes(`"${name}"`) || source.includes(`${name}: `);
    const unread = SETTINGS.filter((r) => !r.name.endsWith("<NAME>") && !r.probot && !named(r.name));
    expect(unread.map((r) => r.name)).toEqual([]);
  });

  it("leaves out of .env.example only what the operator does not set, and says in the reference who does", () => {
    const example = readFileSync(join(ROOT, ENV_EXAMPLE), "utf8");
    const listed = new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!));
    for (const row of SETTINGS) {
      const operators = (row.setBy ?? "operator") === "operator";
      expect(listed.has(row.name), `${row.name} in ${ENV_EXAMPLE}`).toBe(operators);
      if (!operators) expect(environmentReference()).toMatch(new RegExp(`\\| \`${row.name.replace(/[<>]/g, ".")}\` \\|.*set by`));
    }
  });

  it("gives every row what the reference shows: a meaning of one line, and who needs it", () => {
    for (const row of SETTINGS) {
      expect(row.meaning, row.name).toMatch(/^\S[^\n]*[.)]$/);
      expect(row.who.length, row.name).toBeGreaterThan(0);
    }
  });
});
