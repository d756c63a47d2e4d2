/**
 * The manual's site (VitePress): the README as its home, docs/ and the
 * files beside the README as its pages, each written to read on GitHub as
 * it is. `npm run docs:build` builds it into .vitepress/dist/, downloading
 * nothing (the theme's font and the search are in the package).
 *
 * Two things keep a page's links the same on GitHub and in the site:
 * headings get GitHub's anchors (githubSlug), and a link to a file of the
 * repository that is not a page (`../../Dockerfile`, `.env.example`) is left
 * as written, the file being copied into the site at the same place.
 */
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitepress";
import { githubSlug } from "../scripts/docs/github-slug.js";
import { linkTarget } from "../scripts/docs/link-target.js";
import { SITE_NAV } from "../scripts/docs/site-nav.js";
import { sitePages, sitePath } from "../scripts/docs/site-pages.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const pages = sitePages(root);
const pageSet = new Set(pages);
/** Files of the repository that pages link to, copied into the site after the build. */
const linkedFiles = new Set<string>();

/** Markdown files that are not pages (test fixtures): the build leaves them out. */
function otherMarkdown(dir = ""): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = posix.join(dir, e.name);
    if (e.isDirectory()) return e.name.startsWith(".") || ["node_modules", "dist", "data", "coverage"].includes(e.name) ? [] : otherMarkdown(path);
    return e.name.endsWith(".md") && !pageSet.has(path) ? [path] : [];
  });
}

/** The site's URL of a page, for the sidebar. */
const url = (page: string) => `/${sitePath(page).replace(/(^|\/)index\.md$/, "$1").replace(/\.md$/, "")}`;

export default defineConfig({
  title: "issue-leases",
  description: "A GitHub App for taking work: /claim, /renew and /release on issues, with leases and fencing tokens.",
  lang: "en",
  srcExclude: otherMarkdown(),
  rewrites: Object.fromEntries(pages.filter((p) => sitePath(p) !== p).map((p) => [p, sitePath(p)])),
  // The README's <http://localhost:3000> is the app's setup page on the reader's machine.
  ignoreDeadLinks: "localhostLinks",
  themeConfig: {
    search: { provider: "local" },
    nav: [
      { text: "Manual", link: url("docs/README.md") },
      { text: "Reference", link: url("docs/reference/config.md") },
    ],
    sidebar: SITE_NAV.map((group) => ({ text: group.text, items: group.pages.map(([page, text]) => ({ text, link: url(page) })) })),
    outline: [2, 3],
    footer: { message: "MIT licensed." },
  },
  markdown: {
    anchor: { slugify: githubSlug },
    config(md) {
      // `${{ env.X }}` in inline code is text, not a Vue interpolation (fenced code is v-pre already).
      const code = md.renderer.rules.code_inline!;
      md.renderer.rules.code_inline = (tokens, idx, options, env, self) => code(tokens, idx, options, env, self).replace(/^<code/, "<code v-pre");
      const link = md.renderer.rules.link_open!;
      md.renderer.rules.link_open = (tokens, idx, options, env: { path: string }, self) => {
        const token = tokens[idx]!;
        const href = token.attrGet("href");
        const page = posix.relative(root.replace(/\\/g, "/"), env.path.replace(/\\/g, "/"));
        const target = href === null ? null : linkTarget(root, pageSet, page, href);
        if (target?.kind === "file") {
          // As written: the file is copied to the same place in the site.
          linkedFiles.add(target.path);
          return self.renderToken(tokens, idx, options);
        }
        if (target?.kind === "page" && href !== null && !href.startsWith("#")) {
          // A README is its folder's index in the site.
          const to = posix.relative(posix.dirname(page), sitePath(target.path)) || posix.basename(sitePath(target.path));
          token.attrSet("href", `${to}${target.anchor ? `#${encodeURIComponent(target.anchor)}` : ""}`);
        }
        return link(tokens, idx, options, env, self);
      };
    },
  },
  buildEnd(site) {
    for (const file of linkedFiles) {
      mkdirSync(dirname(join(site.outDir, file)), { recursive: true });
      copyFileSync(join(root, file), join(site.outDir, file));
    }
  },
});
