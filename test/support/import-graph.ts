/**
 * The import graph of `src/`, read from the sources as text: every relative
 * `import` and `export … from` (types included, since a type import is a
 * dependency of the reader too), and dynamic `import("…")`. For the layout
 * test: circles and imports that go against the flow.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** Every `.ts` file below `dir`, as paths relative to `root`. */
export function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(root, path));
    else if (entry.name.endsWith(".ts")) out.push(path);
  }
  return out.sort();
}

const SPECIFIER = /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["'](\.{1,2}\/[^"']+)["']|\bimport\s*\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

/** The files of `src/` each file imports, by path relative to `root`. */
export function importGraph(root: string, files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8");
    const deps = new Set<string>();
    for (const m of text.matchAll(SPECIFIER)) {
      const spec = (m[1] ?? m[2])!;
      const target = relative(root, resolve(root, dirname(file), spec)).replace(/\.js$/, ".ts");
      if (known.has(target)) deps.add(target);
    }
    graph.set(file, [...deps].sort());
  }
  return graph;
}

/** The circles of the graph: each strongly connected set of two or more files (or a file importing itself). */
export function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const set: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        set.push(w);
      } while (w !== v);
      if (set.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(set.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}
