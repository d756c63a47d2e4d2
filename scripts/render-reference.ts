/**
 * Writes the reference pages the code writes (`npm run docs:reference`):
 * each module of scripts/reference/ that exports a page's `path` (from the
 * repository's root) and `render()` (its whole text) is a page, so a new
 * page is a new module there. test/docs/reference.test.ts renders them
 * again and fails when a page on disk differs from what the code gives.
 */
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export interface ReferencePage {
  /** From the repository's root, e.g. `docs/reference/config.md`. */
  path: string;
  /** The page's whole text; `root` is the repository's root, where the files it reads are. */
  render(root: string): string | Promise<string>;
}

const HERE = dirname(fileURLToPath(import.meta.url));

/** The pages: every module of scripts/reference/ (compiled or not) that exports `path` and `render`. */
export async function referencePages(): Promise<ReferencePage[]> {
  const dir = join(HERE, "reference");
  const modules = readdirSync(dir).filter((f) => /\.(?:ts|js)$/.test(f) && !f.endsWith(".d.ts"));
  const pages: ReferencePage[] = [];
  for (const file of modules.sort()) {
    const module = (await import(pathToFileURL(join(dir, file)).href)) as Partial<ReferencePage>;
    if (typeof module.path === "string" && typeof module.render === "function") pages.push({ path: module.path, render: module.render });
  }
  return pages;
}

/** Each page's path and text, as the code writes it now from the files under `root`. */
export async function renderReference(root: string): Promise<Array<{ path: string; text: string }>> {
  const pages = await referencePages();
  return Promise.all(pages.map(async (p) => ({ path: p.path, text: await p.render(root) })));
}

/** The pages whose text (`read` from where they are kept) is not what the code writes from `root`, or that are missing, by path. */
export async function staleReferencePages(root: string, read: (path: string) => string | null): Promise<string[]> {
  return (await renderReference(root)).filter((p) => read(p.path) !== p.text).map((p) => p.path);
}

async function main(root: string): Promise<void> {
  for (const page of await renderReference(root)) {
    mkdirSync(dirname(join(root, page.path)), { recursive: true });
    writeFileSync(join(root, page.path), page.text);
    process.stdout.write(`wrote ${page.path}\n`);
  }
}

/** A file's text under `root`, or null when there is none. */
export function readUnder(root: string): (path: string) => string | null {
  return (path) => {
    try {
      return readFileSync(join(root, path), "utf8");
    } catch {
      return null;
    }
  };
}

// Run as `node dist/scripts/render-reference.js` from the repository root (npm run docs:reference).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.cwd());
