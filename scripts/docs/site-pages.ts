/**
 * The Markdown files the manual's site is built from, as paths from the
 * repository's root: the README (the site's home), the files beside it that
 * the manual links (CONTRIBUTING, SECURITY, CHANGELOG), everything in docs/,
 * and the client package's README. Each reads on GitHub as it is; the site
 * turns each README.md into its folder's index.
 */
import { existsSync, readdirSync } from "node:fs";
import { join, posix } from "node:path";

const BESIDE = ["README.md", "CONTRIBUTING.md", "SECURITY.md", "CHANGELOG.md", "packages/client/README.md"];

export function sitePages(root: string): string[] {
  const docs = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
      if (e.name.startsWith(".")) return [];
      const path = posix.join(dir, e.name);
      if (e.isDirectory()) return docs(path);
      return e.name.endsWith(".md") ? [path] : [];
    });
  return [...BESIDE.filter((p) => existsSync(join(root, p))), ...docs("docs")].sort();
}

/** Where a page is in the site: each README.md is its folder's index.md. */
export function sitePath(page: string): string {
  return page.replace(/(^|\/)README\.md$/, "$1index.md");
}
