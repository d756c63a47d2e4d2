/**
 * The reference pages are what the code writes (scripts/render-reference.ts
 * and its modules in scripts/reference/): rendered again here, each must be
 * the page checked in, so a config key, a variable, a CLI flag, an API
 * answer or a metric that changes without its page fails here. And each
 * page covers what it is the reference of: every key of the config's
 * schema, every variable of the table of settings, every metric registered,
 * every command of the CLI, every operation of the OpenAPI document.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readUnder, referencePages, renderReference, staleReferencePages } from "../../scripts/render-reference.js";
import { runCli } from "../../src/cli/run-cli.js";
import { configShape, labelsShape } from "../../src/config/schema.js";
import { AppMetrics } from "../../src/metrics/app-metrics.js";
import { SETTINGS } from "../../src/settings/settings-table.js";

const ROOT = join(import.meta.dirname, "../..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const FIX = "is out of date with the code: run `npm run docs:reference` and commit the result";

describe("the reference pages", () => {
  it("are each what the code writes", async () => {
    const pages = await renderReference(ROOT);
    for (const page of pages) expect(read(page.path), `${page.path} ${FIX}`).toBe(page.text);
  });

  it("are every module of scripts/reference/ that exports a path and a render function", async () => {
    const paths = (await referencePages()).map((p) => p.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "docs/reference/config.md",
        "docs/reference/environment.md",
        "docs/reference/cli.md",
        "docs/reference/api.md",
        "docs/reference/metrics.md",
        "docs/examples.md",
      ]),
    );
    expect(new Set(paths).size).toBe(paths.length);
  });

  it("name a page edited by hand, and a page that is missing, as differing from the code", async () => {
    const onDisk = readUnder(ROOT);
    const read = (path: string) => (path === "docs/reference/config.md" ? `${onDisk(path)}\nA line added by hand.\n` : path === "docs/reference/metrics.md" ? null : onDisk(path));
    expect(await staleReferencePages(ROOT, read)).toEqual(["docs/reference/config.md", "docs/reference/metrics.md"]);
    expect(await staleReferencePages(ROOT, onDisk)).toEqual([]);
  });

  it("give every key of the config's schema, and of its labels, a section", () => {
    const page = read("docs/reference/config.md");
    const keys = [...Object.keys(configShape), ...Object.keys(labelsShape).map((k) => `labels.${k}`)];
    expect(keys.length).toBeGreaterThan(25);
    for (const key of keys) expect(page, key).toContain(`\n## \`${key}\`\n`);
  });

  it("give every variable of the table of settings a row, .env.example's among them", () => {
    const page = read("docs/reference/environment.md");
    const example = read(".env.example");
    expect(SETTINGS.length).toBeGreaterThan(50);
    for (const row of SETTINGS) expect(page, row.name).toContain(`| \`${row.name}\` |`);
    const names = [...example.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!);
    expect(names.length).toBeGreaterThan(50);
    for (const name of names) expect(page, name).toContain(`| \`${name}\` |`);
  });

  it("give every metric the app registers, with its type and labels", () => {
    const page = read("docs/reference/metrics.md");
    const metrics = new AppMetrics({ defaultMetrics: false }).registry.getMetricsAsArray();
    expect(metrics.length).toBeGreaterThan(10);
    for (const m of metrics) expect(page, m.name).toContain(`| \`${m.name}\` |`);
    expect(page).toContain("| `issue_leases_deliveries_total` | counter | `event`, `outcome` |");
  });

  it("give every command of the CLI, the agent's included, its help", async () => {
    const page = read("docs/reference/cli.md");
    let help = "";
    await runCli(["--help"], { out: (t) => (help += t), err: () => {}, clock: () => 0, env: {} });
    const commands = [...help.matchAll(/^ {2}([a-z][a-z-]*) /gm)].map((m) => m[1]!).filter((c) => c !== "agent" && c !== "mcp");
    expect(commands).toContain("force-release");
    for (const command of commands) expect(page, command).toContain(`## \`issue-leases ${command}\``);
    for (const command of ["claim", "renew", "release", "status", "verify", "mine", "run", "next"]) expect(page).toContain(`### \`issue-leases agent ${command}\``);
    expect(page).toContain("## `issue-leases mcp`");
  });

  it("give every operation and schema of the OpenAPI document", () => {
    const page = read("docs/reference/api.md");
    const doc = JSON.parse(read("src/api/openapi.json")) as { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item).filter((k) => k !== "parameters")) expect(page).toContain(`### \`${method.toUpperCase()} ${path}\``);
    }
    for (const name of Object.keys(doc.components.schemas)) expect(page).toContain(`\n### ${name}\n`);
  });
});
