/**
 * What a link written in a page points at, read as GitHub reads it: a path
 * relative to the page's own file in the repository, then `#anchor`. The
 * site's renderer and the link check both start from here.
 */
import { existsSync, statSync } from "node:fs";
import { join, posix } from "node:path";

export interface LinkTarget {
  /** The target's path from the repository's root; the page itself for `#anchor` alone. */
  path: string;
  /** The anchor after `#`, decoded; "" when none. */
  anchor: string;
  /** A page of the site, another file of the repository, a folder, or nothing. */
  kind: "page" | "file" | "folder" | "missing";
}

/** A scheme (`https:`, `mailto:`) or an absolute path: not a file of the repository. */
const ELSEWHERE = /^(?:[a-z][a-z0-9+.-]*:|\/)/i;

/** The target of `href` written in `page` (a path from the root), or null for a link that leaves the repository. */
export function linkTarget(root: string, pages: ReadonlySet<string>, page: string, href: string): LinkTarget | null {
  if (ELSEWHERE.test(href)) return null;
  const hashAt = href.indexOf("#");
  const file = hashAt < 0 ? href : href.slice(0, hashAt);
  const anchor = hashAt < 0 ? "" : safeDecode(href.slice(hashAt + 1));
  const path = file === "" ? page : posix.normalize(posix.join(posix.dirname(page), safeDecode(file.split("?")[0]!))).replace(/\/$/, "");
  if (pages.has(path)) return { path, anchor, kind: "page" };
  // A folder with a README: GitHub shows the README, the site its index.
  const readme = posix.join(path, "README.md");
  if (pages.has(readme)) return { path: readme, anchor, kind: "page" };
  const abs = join(root, path);
  if (path.startsWith("..") || !existsSync(abs)) return { path, anchor, kind: "missing" };
  return { path, anchor, kind: statSync(abs).isDirectory() ? "folder" : "file" };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
