/**
 * The boundaries issue 38 drew, checked on the sources and on the running
 * app:
 *
 * - the environment is read in one place: no `process.env` in src/ but in
 *   the entry points named below, which hand it to the settings
 *   (src/settings/);
 * - Probot is used, never patched: no assignment to a member of a Probot,
 *   of an app or of their webhooks in src/, and the app loaded into a Probot
 *   leaves every method of it and of its Webhooks as it found them;
 * - no file of src/ is over 300 lines, but generated ones and migrations.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Probot } from "probot";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { issueLeases, type Runtime } from "../../src/app.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { AppMetrics } from "../../src/metrics/app-metrics.js";
import { sourceFiles } from "../support/import-graph.js";
import { ROOT } from "../support/server-process.js";

const sources = sourceFiles(ROOT, "src");
const parsed = (file: string) => ts.createSourceFile(file, readFileSync(join(ROOT, file), "utf8"), ts.ScriptTarget.Latest, true);

function nodes(node: ts.Node, found: ts.Node[] = []): ts.Node[] {
  found.push(node);
  node.forEachChild((child) => void nodes(child, found));
  return found;
}

/** The entry points that read the process's environment, each for its own program, and pass it on to the settings. */
const READS_THE_ENVIRONMENT: Record<string, string> = {
  "src/startup/start.ts": "the server (npm start)",
  "src/index.ts": "`probot run ./dist/src/index.js`, refused",
  "src/cli/main.ts": "the CLI (issue-leases), whose commands are given it as io.env",
  "src/action/runner.ts": "the Action's steps: the runner's protocol (INPUT_*, GITHUB_*)",
};

/** `process.env` in a source, by line. */
function processEnvReads(file: string): number[] {
  const source = parsed(file);
  return nodes(source)
    .filter((n) => ts.isPropertyAccessExpression(n) && n.name.text === "env" && n.expression.getText(source) === "process")
    .map((n) => source.getLineAndCharacterOfPosition(n.getStart(source)).line + 1);
}

/** Names under which src/ holds a Probot, an app or their webhooks. */
const PROBOT_LIKE = /(?:^|\.)(?:app|probot|webhooks|router)$/;

/** Assignments to a member of a Probot-like object, and Object.assign/defineProperty on one, by line. */
function probotPatches(file: string): string[] {
  const source = parsed(file);
  const at = (n: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(n.getStart(source)).line + 1}: ${n.getText(source).slice(0, 80)}`;
  const member = (n: ts.Node) =>
    (ts.isPropertyAccessExpression(n) || ts.isElementAccessExpression(n)) && PROBOT_LIKE.test(n.expression.getText(source).replace(/\s+/g, ""));
  return nodes(source).flatMap((n) => {
    if (ts.isBinaryExpression(n) && n.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && n.operatorToken.kind <= ts.SyntaxKind.LastAssignment && member(n.left)) {
      return [at(n)];
    }
    if (ts.isCallExpression(n) && /^Object\.(assign|defineProperty|defineProperties|setPrototypeOf)$/.test(n.expression.getText(source))) {
      const target = n.arguments[0]?.getText(source).replace(/\s+/g, "") ?? "";
      if (PROBOT_LIKE.test(target)) return [at(n)];
    }
    return [];
  });
}

/** Every function of `object` reachable by name (own and inherited, accessors left out), by name. */
function methodsOf(object: object): Map<string, unknown> {
  const found = new Map<string, unknown>();
  for (let o: object | null = object; o && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null) {
    for (const name of Object.getOwnPropertyNames(o)) {
      const d = Object.getOwnPropertyDescriptor(o, name)!;
      if (name !== "constructor" && !found.has(name) && typeof d.value === "function") found.set(name, d.value);
    }
  }
  return found;
}

describe("the environment", () => {
  it("is read only by the entry points, which hand it to the settings", () => {
    const reads = sources.flatMap((file) => (file in READS_THE_ENVIRONMENT ? [] : processEnvReads(file).map((line) => `${file}:${line}`)));
    expect(reads).toEqual([]);
    // Each entry named still reads it: the list says where the environment comes in.
    for (const file of Object.keys(READS_THE_ENVIRONMENT)) expect(processEnvReads(file).length, file).toBeGreaterThan(0);
  });

  it("is found by the check where it is read, in code and not in comments", () => {
    expect(processEnvReads("src/startup/start.ts").length).toBeGreaterThan(0);
    // js-exports.ts names `process.env.<NAME>` only in its comments.
    expect(readFileSync(join(ROOT, "src/cli/import/js-exports.ts"), "utf8")).toContain("process.env");
    expect(processEnvReads("src/cli/import/js-exports.ts")).toEqual([]);
  });
});

describe("Probot", () => {
  it("has no method of its, an app's or their webhooks' assigned anywhere in src/", () => {
    expect(sources.flatMap(probotPatches)).toEqual([]);
  });

  it("is used through its public methods only: the app loaded into a Probot leaves its methods and its Webhooks' as they were", async () => {
    const dir = mkdtempSync(join(tmpdir(), "issue-leases-boundaries-"));
    const probot = new Probot({ appId: 1, githubToken: "test-token", logLevel: "fatal" });
    await probot.ready();
    const webhooks = probot.webhooks;
    const before = { probot: methodsOf(probot), webhooks: methodsOf(webhooks) };
    expect(before.webhooks.has("verifyAndReceive") && before.probot.has("getNodeMiddleware") && before.probot.has("on")).toBe(true);
    let runtime: Runtime | undefined;
    try {
      // With metrics (every delivery counted) and an HTTP server's addHandler (every route added): the app at its fullest.
      await probot.load(
        issueLeases({
          ledger: new SqliteLedger(join(dir, "leases.db")),
          background: false,
          appId: 1,
          metrics: new AppMetrics({ defaultMetrics: false }),
          onReady: (r) => (runtime = r),
        }),
        { cwd: ROOT, addHandler: () => undefined },
      );
      expect(runtime).toBeDefined();
      expect(probot.webhooks).toBe(webhooks);
      const changed = (was: Map<string, unknown>, now: Map<string, unknown>) => [...now].filter(([name, f]) => was.get(name) !== f).map(([name]) => name);
      expect(changed(before.probot, methodsOf(probot))).toEqual([]);
      expect(changed(before.webhooks, methodsOf(webhooks))).toEqual([]);
    } finally {
      await runtime?.shutdown();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Over 300 lines, and allowed: generated, or a migration (every schema version, in order). */
const LONG_ALLOWED: Record<string, string> = {
  "src/api/openapi.json": "generated: the API's document",
  "src/ledger/sqlite/migrations.ts": "migrations",
  "src/ledger/postgres/migrations.ts": "migrations",
};

function allFiles(dir: string): string[] {
  return sourceFiles(ROOT, dir).concat(["src/api/openapi.json"]);
}

describe("the files of src/", () => {
  it("are 300 lines at most, but generated ones and migrations", () => {
    const lines = (file: string) => readFileSync(join(ROOT, file), "utf8").split("\n").length - 1;
    const long = allFiles("src").filter((file) => lines(file) > 300 && !(file in LONG_ALLOWED)).map((file) => `${file} (${lines(file)})`);
    expect(long).toEqual([]);
  });

  it("keep the allowance only for files that are still long", () => {
    const lines = (file: string) => readFileSync(join(ROOT, file), "utf8").split("\n").length - 1;
    const short = Object.keys(LONG_ALLOWED).filter((file) => lines(file) <= 300);
    expect(short).toEqual([]);
  });

  it("keep app.ts, the app's wiring, short enough to read in a minute", () => {
    expect(readFileSync(join(ROOT, "src/app.ts"), "utf8").split("\n").length - 1).toBeLessThanOrEqual(120);
  });
});
