/**
 * The source tree shows the flow (docs/layout.md): no file imports itself
 * through others, each folder imports only folders below it in the order
 * below, and the layout page names every folder and file it maps.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { circles, importGraph, sourceFiles } from "../support/import-graph.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * Folders of src/ from the bottom up: a folder may import its own files and
 * those of folders before it, never one after it. The ledger knows nothing of
 * GitHub; what the app writes on GitHub knows nothing of commands' flow; the
 * outbox applies effects through github/; leasing decides and queues; the
 * edges (webhooks, the API, the board, the CLI) call leasing; the GitHub
 * Action runs the CLI's `agent run`. The settings (settings/) read every
 * variable into the types of the folders below; the app's parts are
 * assembled from them (wiring/, for app.ts); the launcher (startup/) and
 * the CLI read them. The MCP server (mcp/) is an edge over
 * the client package and the API's parts; the CLI's `mcp` and app.ts start it. The client is a package of its own
 * (packages/client/), imported by its name: it is in no folder here.
 */
const ORDER = [
  "ledger",
  "commands",
  "checks",
  "github",
  "events",
  "config",
  "outbox",
  "leasing",
  "webhooks",
  "api",
  "mcp",
  "metrics",
  "dashboard",
  "settings",
  "wiring",
  "startup",
  "cli",
  "action",
];
/** Entry points: they wire everything, and only another entry imports them. */
const ENTRIES = ["src/app.ts", "src/index.ts", "src/startup/start.ts", "src/cli/main.ts", "src/action/main.ts", "src/action/post.ts"];

const files = sourceFiles(ROOT, "src");
const graph = importGraph(ROOT, files);
const folderOf = (file: string): string => file.split("/")[1]!;

describe("the source tree", () => {
  it("has no import circles", () => {
    expect(circles(graph)).toEqual([]);
  });

  it("imports only downward, in the flow's order", () => {
    const upward: string[] = [];
    for (const [file, deps] of graph) {
      for (const dep of deps) {
        if (ENTRIES.includes(dep) && !ENTRIES.includes(file)) upward.push(`${file} -> ${dep} (an entry point)`);
        if (ENTRIES.includes(file)) continue;
        const from = ORDER.indexOf(folderOf(file));
        const to = ORDER.indexOf(folderOf(dep));
        if (from < 0) upward.push(`${file} is in no folder of the order`);
        else if (to > from) upward.push(`${file} -> ${dep}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it("keeps no loose files in src/ but the entry points", () => {
    const loose = readdirSync(join(ROOT, "src"), { withFileTypes: true }).filter((e) => e.isFile()).map((e) => `src/${e.name}`);
    expect(loose.filter((f) => !ENTRIES.includes(f))).toEqual([]);
  });

  it("is mapped by docs/layout.md: every folder named, and every path it names exists", () => {
    const layout = readFileSync(join(ROOT, "docs/layout.md"), "utf8");
    const folders = new Set(files.map((f) => dirname(f)));
    const unnamed = [...folders].filter((d) => !layout.includes(`${d}/`));
    expect(unnamed).toEqual([]);
    const named = [...layout.matchAll(/\b((?:src|test|bench|scripts|docs|packages|action)\/[\w./-]*[\w/])/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });
});
