/**
 * The manual names commands and links files: each `npm run` script it shows
 * is in package.json, each `npx issue-leases` command is one the CLI knows,
 * and each relative link points at a file that exists.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { sitePages } from "../../scripts/docs/site-pages.js";
import { AGENT_HELP } from "../../src/cli/agent-help.js";
import { runCli } from "../../src/cli/run-cli.js";

const root = join(import.meta.dirname, "../..");
const read = (path: string) => readFileSync(join(root, path), "utf8");
// The README, the files beside it, every page of docs/ (the guides and the reference included) and the client's README.
const pages = sitePages(root);
const scripts = Object.keys((JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts);

describe("the manual", () => {
  it.each(pages)("%s shows only npm scripts package.json has", (page) => {
    for (const m of read(page).matchAll(/npm run ([\w:-]+)/g)) expect(scripts, `${page}: npm run ${m[1]}`).toContain(m[1]);
  });

  it("shows only CLI commands the CLI knows", async () => {
    let help = "";
    await runCli(["--help"], { out: (t) => (help += t), err: () => {}, clock: () => 0, env: {} });
    const known = [...help.matchAll(/^ {2}([a-z][a-z-]*) /gm)].map((m) => m[1]);
    for (const page of pages) {
      for (const m of read(page).matchAll(/npx issue-leases ([a-z][a-z-]*)/g)) expect(known, `${page}: npx issue-leases ${m[1]}`).toContain(m[1]);
    }
  });

  it("shows only client commands the CLI knows (issue-leases agent …)", () => {
    const commands = AGENT_HELP.slice(AGENT_HELP.indexOf("Commands:"), AGENT_HELP.indexOf("Options"));
    const known = [...commands.matchAll(/^ {2}([a-z]+) /gm)].map((m) => m[1]);
    expect(known).toEqual(["claim", "renew", "release", "status", "verify", "mine", "run", "next"]);
    let seen = 0;
    for (const page of pages) {
      for (const m of read(page).matchAll(/issue-leases agent ([a-z][a-z-]*)/g)) {
        seen++;
        expect(known, `${page}: issue-leases agent ${m[1]}`).toContain(m[1]);
      }
    }
    expect(seen).toBeGreaterThan(0);
  });

  it.each(pages)("%s links only to files that exist", (page) => {
    for (const m of read(page).matchAll(/\]\((?!https?:|#|mailto:)([^)#\s]+)(?:#[^)]*)?\)/g)) {
      expect(existsSync(join(root, dirname(page), m[1]!)), `${page}: link to ${m[1]}`).toBe(true);
    }
  });

  it("is every page of docs/, its guides and reference included", () => {
    for (const page of ["README.md", "SECURITY.md", "docs/README.md", "docs/contributors/commands.md", "docs/reference/config.md", "packages/client/README.md"]) {
      expect(pages).toContain(page);
    }
  });

  it("keeps the two set-up commands and SKIP_POSTGRES=1 beside the test command", () => {
    const readme = read("README.md");
    expect(readme).toMatch(/^npm ci && npm start\b/m);
    expect(readme).toMatch(/^npm ci && npm test\b.*SKIP_POSTGRES=1/m);
  });
});
