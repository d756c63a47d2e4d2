/**
 * The manual's site: `npm run docs:build` builds it with VitePress from the
 * Markdown as it is, reaching nothing beyond this machine, and the link
 * check (scripts/docs/check-links.ts) finds every relative link and anchor
 * whole, in the Markdown as GitHub renders it and in the built site, every
 * page built and in the sidebar. The check itself is shown to fail on each
 * kind of broken link.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { checkManual, checkMarkdownLinks, checkSiteLinks, formatProblem, markdownAnchors } from "../../scripts/docs/check-links.js";

const ROOT = join(import.meta.dirname, "../..");
const run = promisify(execFile);
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A folder holding `files` (path → text). */
function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "issue-leases-docs-"));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe("the manual's site", () => {
  it("builds with VitePress, reaching nothing beyond this machine, and every link and anchor resolves in the Markdown and in the site", async () => {
    const out = folder({});
    const { stdout, stderr } = await run("npm", ["run", "docs:build", "--", "--outDir", out], {
      cwd: ROOT,
      env: { ...process.env, NODE_OPTIONS: `--require ${join(ROOT, "test/support/no-network.cjs")}` },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 280_000,
    });
    expect(stdout).toContain("build complete");
    expect(stderr).not.toContain("no-network: refused");
    expect(checkManual(ROOT, out).map(formatProblem)).toEqual([]);
  }, 300_000);
});

describe("the link check", () => {
  it("finds, in the Markdown, a missing file, a missing anchor and a link to a folder; and takes headings and <a id> as anchors", () => {
    const root = folder({
      "README.md": [
        "# Title",
        "",
        "[ok](docs/a.md#a-heading-with-code) [ok too](docs/a.md#kept) [same page](#title) [image](docs/a.png)",
        "[gone](docs/gone.md) [no anchor](docs/a.md#nowhere) [folder](src/) [away](https://example.com/x#y)",
        "",
        "```md",
        "[inside code](docs/not-a-link.md)",
        "```",
      ].join("\n"),
      "docs/a.md": '# A heading with `code`\n\n<a id="kept"></a>Text.\n',
      "docs/a.png": "",
      "src/x.ts": "",
    });
    expect(checkMarkdownLinks(root, ["README.md", "docs/a.md"]).map(formatProblem)).toEqual([
      "README.md: docs/gone.md: no such file: docs/gone.md",
      "README.md: docs/a.md#nowhere: docs/a.md has no heading or id for #nowhere",
      "README.md: src/: a folder, which the site cannot show: link a file in src/",
    ]);
  });

  it("names headings as GitHub does: punctuation dropped, spaces as hyphens, a repeated one numbered", () => {
    const anchors = markdownAnchors("# GitHub's limits\n\n## The wait list: `queue: true`\n\n## Notes\n\n## Notes\n\n## A — B\n");
    expect([...anchors]).toEqual(["githubs-limits", "the-wait-list-queue-true", "notes", "notes-1", "a--b"]);
  });

  it("finds, in the built site, a page that is not there, an id that is not there, and a path outside the base", () => {
    const out = folder({
      "index.html": '<a href="docs/a.html#here">ok</a> <a href="/site/docs/a">clean</a> <a href="docs/b.html">gone</a> <a href="docs/a.html#gone">no id</a> <a href="https://example.com/">away</a>',
      "docs/a.html": '<h2 id="here">Here</h2><a href="../index.html">up</a><a href="/elsewhere/x.html">outside</a><img src="../assets/x.png">',
    });
    expect(checkSiteLinks(out, "/site/").map(formatProblem)).toEqual([
      "docs/a.html: /elsewhere/x.html: outside the site's base /site/",
      "docs/a.html: ../assets/x.png: nothing in the site at /assets/x.png",
      "index.html: docs/b.html: nothing in the site at /docs/b.html",
      "index.html: docs/a.html#gone: docs/a.html has no id gone",
    ]);
  });
});
