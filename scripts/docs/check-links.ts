/**
 * The manual's link check (`npm run docs:check-links`, and
 * test/docs/site.test.ts in `npm test`): every relative link and anchor,
 * twice.
 *
 * - In the Markdown, as GitHub renders it: each page's links lead to a file
 *   of the repository, and an anchor to a heading of that page (GitHub's
 *   slugs, githubSlug) or an `<a id>` in it.
 * - In the built site (.vitepress/dist/): each `href` and `src` of each
 *   HTML file leads to a file of the site, and an anchor to an `id` there;
 *   every page was built, and is in the sidebar.
 *
 * Links that leave the repository (`https:`, `mailto:`) are not followed:
 * the check runs offline.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix } from "node:path";
import { pathToFileURL } from "node:url";
import MarkdownIt from "markdown-it";
import { SlugCounter } from "./github-slug.js";
import { linkTarget } from "./link-target.js";
import { SITE_NAV } from "./site-nav.js";
import { sitePages, sitePath } from "./site-pages.js";

export interface LinkProblem {
  /** The page (a Markdown path from the root, or an HTML path in the site) the link is written in. */
  page: string;
  link: string;
  problem: string;
}

type Token = ReturnType<InstanceType<typeof MarkdownIt>["parse"]>[number];

const md = new MarkdownIt({ html: true });

/** `<a id="x">`, `<a name="x">` and any other element's id, in a piece of HTML. */
function htmlIds(html: string): string[] {
  return [...html.matchAll(/\s(?:id|name)\s*=\s*"([^"]*)"/g)].map((m) => decodeEntities(m[1]!));
}

/** `href` and `src` of the elements of a piece of HTML. */
function htmlLinks(html: string): string[] {
  return [...html.matchAll(/\s(?:href|src)\s*=\s*"([^"]*)"/g)].map((m) => decodeEntities(m[1]!));
}

function decodeEntities(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/** Every token, inline children included, in order. */
function flat(tokens: Token[]): Token[] {
  return tokens.flatMap((t) => [t, ...(t.children ? flat(t.children) : [])]);
}

/** The anchors GitHub gives a Markdown text: its headings' slugs, and the ids of its HTML. */
export function markdownAnchors(text: string): Set<string> {
  const tokens = md.parse(text, {});
  const slugs = new SlugCounter();
  const anchors = new Set<string>();
  tokens.forEach((t, i) => {
    if (t.type === "heading_open") {
      const inline = tokens[i + 1]!;
      const title = flat(inline.children ?? [])
        .filter((c) => c.type === "text" || c.type === "code_inline")
        .map((c) => c.content)
        .join("");
      anchors.add(slugs.next(title));
    }
  });
  for (const t of flat(tokens)) if (t.type === "html_block" || t.type === "html_inline") for (const id of htmlIds(t.content)) anchors.add(id);
  return anchors;
}

/** The links of a Markdown text as written: links, images, and the `href`/`src` of its HTML. */
export function markdownLinks(text: string): string[] {
  const links: string[] = [];
  for (const t of flat(md.parse(text, {}))) {
    if (t.type === "link_open") links.push(String(t.attrGet("href") ?? ""));
    else if (t.type === "image") links.push(String(t.attrGet("src") ?? ""));
    else if (t.type === "html_block" || t.type === "html_inline") links.push(...htmlLinks(t.content));
  }
  return links.filter((l) => l !== "");
}

/** Each page's links, as GitHub renders the Markdown, against the files of the repository under `root`. */
export function checkMarkdownLinks(root: string, pages: readonly string[]): LinkProblem[] {
  const pageSet = new Set(pages);
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (path: string) => {
    if (!anchorsOf.has(path)) anchorsOf.set(path, markdownAnchors(readFileSync(join(root, path), "utf8")));
    return anchorsOf.get(path)!;
  };
  const problems: LinkProblem[] = [];
  for (const page of pages) {
    for (const link of markdownLinks(readFileSync(join(root, page), "utf8"))) {
      const target = linkTarget(root, pageSet, page, link);
      if (target === null) continue;
      if (target.kind === "missing") problems.push({ page, link, problem: `no such file: ${target.path}` });
      else if (target.kind === "folder") problems.push({ page, link, problem: `a folder, which the site cannot show: link a file in ${target.path}/` });
      else if (target.anchor !== "" && target.path.endsWith(".md") && !anchors(target.path).has(target.anchor)) {
        problems.push({ page, link, problem: `${target.path} has no heading or id for #${target.anchor}` });
      }
    }
  }
  return problems;
}

function htmlFiles(dir: string, from = ""): string[] {
  const entries = readdirSync(join(dir, from), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  return entries.flatMap((e) => {
    const path = posix.join(from, e.name);
    if (e.isDirectory()) return htmlFiles(dir, path);
    return e.name.endsWith(".html") ? [path] : [];
  });
}

/** The file a URL path of the site is served from: itself, `.html` added (clean URLs), or its folder's index. */
function served(outDir: string, path: string): string | null {
  for (const candidate of [path, `${path}.html`, path === "" ? "index.html" : posix.join(path, "index.html")]) {
    const file = join(outDir, candidate);
    if (candidate !== "" && existsSync(file) && statSync(file).isFile()) return candidate;
  }
  return null;
}

/** Every internal `href` and `src` of the built site under `outDir` (served at `base`), and each anchor. */
export function checkSiteLinks(outDir: string, base = "/"): LinkProblem[] {
  const files = htmlFiles(outDir);
  const idsOf = new Map<string, Set<string>>();
  const ids = (file: string) => {
    if (!idsOf.has(file)) idsOf.set(file, new Set(htmlIds(readFileSync(join(outDir, file), "utf8"))));
    return idsOf.get(file)!;
  };
  const problems: LinkProblem[] = [];
  for (const page of files) {
    for (const link of htmlLinks(readFileSync(join(outDir, page), "utf8"))) {
      if (/^(?:[a-z][a-z0-9+.-]*:|\/\/)/i.test(link) || link === "#") continue;
      const hashAt = link.indexOf("#");
      const pathPart = (hashAt < 0 ? link : link.slice(0, hashAt)).split("?")[0]!;
      const anchor = hashAt < 0 ? "" : decodeURIComponent(link.slice(hashAt + 1));
      let path: string;
      if (pathPart === "") path = page;
      else if (pathPart.startsWith("/")) {
        if (!pathPart.startsWith(base)) {
          problems.push({ page, link, problem: `outside the site's base ${base}` });
          continue;
        }
        path = posix.normalize(decodeURIComponent(pathPart.slice(base.length)));
      } else path = posix.normalize(posix.join(posix.dirname(page), decodeURIComponent(pathPart)));
      const file = served(outDir, path === "." ? "" : path.replace(/\/$/, ""));
      if (file === null) problems.push({ page, link, problem: `nothing in the site at /${path}` });
      else if (anchor !== "" && file.endsWith(".html") && !ids(file).has(anchor)) problems.push({ page, link, problem: `${file} has no id ${anchor}` });
    }
  }
  return problems;
}

/** Every page built, and each in the sidebar once; the sidebar names no file that is not a page. */
export function checkSitePages(root: string, outDir: string): LinkProblem[] {
  const pages = sitePages(root);
  const inNav = SITE_NAV.flatMap((g) => g.pages.map(([path]) => path));
  const problems: LinkProblem[] = [];
  for (const page of pages) {
    const html = sitePath(page).replace(/\.md$/, ".html");
    if (!existsSync(join(outDir, html))) problems.push({ page, link: html, problem: "the page was not built" });
    const times = inNav.filter((p) => p === page).length;
    if (times !== 1) problems.push({ page, link: "the sidebar", problem: `in the sidebar ${times} times (scripts/docs/site-nav.ts)` });
  }
  for (const path of inNav) if (!pages.includes(path)) problems.push({ page: "scripts/docs/site-nav.ts", link: path, problem: "not a page of the site" });
  return problems;
}

/** All three checks of the manual under `root`, its site built in `outDir`. */
export function checkManual(root: string, outDir = join(root, ".vitepress/dist")): LinkProblem[] {
  if (!existsSync(outDir)) return [{ page: outDir, link: "", problem: "the site is not built: run `npm run docs:build` first" }];
  return [...checkMarkdownLinks(root, sitePages(root)), ...checkSitePages(root, outDir), ...checkSiteLinks(outDir)];
}

export function formatProblem(p: LinkProblem): string {
  return `${p.page}: ${p.link}: ${p.problem}`;
}

// Run as `node dist/scripts/docs/check-links.js` from the repository root (npm run docs:check-links).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = process.cwd();
  const problems = checkManual(root);
  for (const p of problems) process.stderr.write(`${formatProblem(p)}\n`);
  if (problems.length > 0) process.exit(1);
  process.stdout.write(`every link and anchor of ${sitePages(root).length} pages resolves, in the Markdown and in the built site\n`);
}
