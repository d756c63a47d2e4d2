/**
 * The keys of another bot's nested config, and which of them an import has
 * dealt with, so that the rest can be named: a key this import does not
 * know, a value the file computes, or one left unset all end in the printed
 * file's comments rather than vanishing (see `sweep`).
 */
import { Imported, isMapping, show } from "./imported.js";
import { JsExpression } from "./js-exports.js";

/** A dotted path (`issues.commands.assign.limit`) or its parts. */
type Path = string | readonly string[];

const parts = (path: Path): readonly string[] => (typeof path === "string" ? path.split(".") : path);

// More leftover keys than this are named together.
const LISTED = 20;

export class KeySweep {
  private readonly done = new Set<string>();

  constructor(private readonly root: Record<string, unknown>) {}

  /** The value at `path`, undefined when absent (or under something that is not a mapping). */
  get(path: Path): unknown {
    let value: unknown = this.root;
    for (const part of parts(path)) {
      if (!isMapping(value) || !Object.hasOwn(value, part)) return undefined;
      value = value[part];
    }
    return value;
  }

  /** Whether the file has `path`. */
  has(path: Path): boolean {
    return this.get(path) !== undefined || this.isNull(path);
  }

  private isNull(path: Path): boolean {
    const all = parts(path);
    const parent = all.length === 1 ? this.root : this.get(all.slice(0, -1));
    return isMapping(parent) && Object.hasOwn(parent, all[all.length - 1]!) && parent[all[all.length - 1]!] === undefined;
  }

  /** Marks `path`, and everything under it, as dealt with. */
  dealt(...paths: Path[]): void {
    for (const path of paths) this.done.add(JSON.stringify(parts(path)));
  }

  private isDone(path: readonly string[]): boolean {
    for (let i = 1; i <= path.length; i++) if (this.done.has(JSON.stringify(path.slice(0, i)))) return true;
    return false;
  }

  /** The keys not dealt with, deepest first met: each leaf (a value, a list, an empty mapping) by its path. */
  rest(): Array<{ path: string; parts: string[]; value: unknown }> {
    const out: Array<{ path: string; parts: string[]; value: unknown }> = [];
    const walk = (value: unknown, path: string[]) => {
      if (path.length > 0 && this.isDone(path)) return;
      if (isMapping(value) && (path.length === 0 || Object.keys(value).length > 0)) {
        for (const [key, child] of Object.entries(value)) walk(child, [...path, key]);
        return;
      }
      out.push({ path: path.join("."), parts: path, value });
    };
    walk(this.root, []);
    return out;
  }

  /**
   * Names each key not dealt with in `out`: a value the file computes as one
   * to set by hand, an unset one (null) as nothing to import, any other as a
   * setting of `peer` this import does not know.
   */
  sweep(out: Imported, peer: string): void {
    const rest = this.rest();
    for (const { path, value } of rest.slice(0, LISTED)) {
      if (value instanceof JsExpression) {
        out.none(`${path} (${show(value)})`, `computed when ${peer} runs, not a value written in the file; this import does not run it, so set what it gives by hand.`);
      } else if (value === null || value === undefined) {
        out.alreadySo(`${path} (${String(value)})`, "not set, so there is nothing to import.");
      } else {
        out.none(`${path} (${show(value)})`, `not a setting of ${peer} that this import knows.`);
      }
    }
    if (rest.length > LISTED) {
      out.none(rest.slice(LISTED).map((r) => r.path).join(", "), `not read by this import (${rest.length - LISTED} more keys like those above).`);
    }
    this.dealt(...rest.map((r) => r.parts));
  }
}
