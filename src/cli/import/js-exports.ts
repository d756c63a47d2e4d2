/**
 * The values a JavaScript or TypeScript config module exports, read without
 * running it: zulipbot's `config/config.js` (CommonJS, `exports.issues = {…}`
 * until 2021; `module.exports = {…}` in some deployments) and its later
 * `config.ts` (`export const issues = {…}`). A config is a program, so it is
 * parsed, never evaluated: only the literal subset such files are written in
 * is read (objects, arrays, strings, numbers, `true`/`false`/`null`,
 * `Infinity`, `new Map([[k, v], …])`, `new Array()`); anything else (a
 * `require`, `process.env.<NAME> || …`, a call) becomes a `JsExpression` carrying
 * its text, for the importer to name as a value it cannot know.
 *
 * No parser library is a dependency of the app (acorn and TypeScript are not
 * at run time), and this subset is small: a tokenizer over strings, comments
 * and brackets, and a recursive reader of literals, bounded in depth. A
 * statement that is not an export (`const secrets = require(…)`, an
 * `import`) is skipped; an export that is not a literal is kept as a
 * JsExpression under its name.
 */

import { FAILED, JsScanner } from "./js-scanner.js";

/** A value the module computes (`process.env.<NAME>`, `require(…)`), shown by its source text. */
export class JsExpression {
  constructor(readonly text: string) {}
}

/** What a module exports: each name and its value; null when the text is not a module of exports. */
export function readJsExports(text: string): Record<string, unknown> | null {
  const r = new Reader(text);
  const exports: Record<string, unknown> = {};
  let found = false;
  while (r.skipSpace() && r.more()) {
    const start = r.pos;
    const target = r.exportTarget();
    if (target === null) {
      r.pos = start;
      r.skipStatement();
      continue;
    }
    found = true;
    const value = r.valueOrExpression();
    r.skipStatement();
    if (target === "*") {
      // `module.exports = {…}`: its keys are the exports.
      if (value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof JsExpression)) Object.assign(exports, value);
      else exports["module.exports"] = value;
    } else {
      exports[target] = value;
    }
  }

  return found ? exports : null;
}

// Deeper nesting than this is no config.
const MAX_DEPTH = 64;
const NUMBER = /(?:0[xX][\da-fA-F]+|(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][-+]?\d+)?)/y;

/** The reader of a module's exports and their literal values, over the scanner's strings, comments and brackets. */
class Reader extends JsScanner {
  /**
   * After `exports.NAME =`, `module.exports.NAME =`, `export const NAME
   * (: Type) =`: NAME; after `module.exports =`: "*"; otherwise null.
   */
  exportTarget(): string | null {
    const first = this.word();
    if (first === "export") {
      this.skipSpace();
      const kind = this.word();
      if (kind === "default") return "*";
      if (kind !== "const" && kind !== "let" && kind !== "var") return null;
      this.skipSpace();
      const name = this.word();
      if (name === null) return null;
      // A TypeScript annotation (`: Record<string, number>`) ends at the `=` outside any brackets.
      if (this.eat(":") && !this.skipTo("=")) return null;
      return this.eat("=") && !this.text.startsWith("=", this.pos) ? name : null;
    }
    let module = false;
    if (first === "module") {
      if (!this.eat(".") || this.word() !== "exports") return null;
      module = true;
    } else if (first !== "exports") return null;
    if (this.eat(".")) {
      const name = this.word();
      return name !== null && this.eat("=") && !this.text.startsWith("=", this.pos) ? name : null;
    }
    return module && this.eat("=") && !this.text.startsWith("=", this.pos) ? "*" : null;
  }

  /** A literal, or the expression's text up to the end of the statement (or of the enclosing item). */
  valueOrExpression(depth = 0): unknown {
    const start = this.pos;
    const value = this.literal(depth);
    if (value !== FAILED) {
      const end = this.pos;
      this.skipSpace();
      const next = this.text[this.pos];
      const word = next !== undefined && /[A-Za-z_$]/.test(next) ? this.word() : null;
      // `as const` and `satisfies T` leave the value as it is.
      if (word === "as" || word === "satisfies") {
        this.skipTo(",;)]}", true);
        return value;
      }
      // A line break ends a statement without its semicolon; the caller sees it (skipStatement stops there).
      const newline = this.text.slice(end, this.pos).includes("\n");
      this.pos = end;
      if (next === undefined || ",;)]}".includes(next) || newline) return value;
    }
    this.pos = start;
    this.skipSpace();
    const from = this.pos;
    this.skipTo(",;)]}", true);
    return new JsExpression(this.text.slice(from, Math.min(this.pos, from + 200)).trim());
  }

  private literal(depth: number): unknown {
    if (depth > MAX_DEPTH) return FAILED;
    this.skipSpace();
    const t = this.text;
    const c = t[this.pos];
    if (c === undefined) return FAILED;
    if (c === "{") return this.object(depth);
    if (c === "[") return this.array(depth);
    if (c === '"' || c === "'") return this.stringLiteral(c);
    if (c === "`") return this.templateLiteral();
    const start = this.pos;
    const negative = this.eat("-");
    this.skipSpace();
    NUMBER.lastIndex = this.pos;
    const n = NUMBER.exec(t);
    if (n !== null) {
      this.pos += n[0].length;
      const number = Number(n[0].replace(/_/g, ""));
      return negative ? -number : number;
    }
    const word = this.word();
    if (word === "Infinity") return negative ? -Infinity : Infinity;
    if (negative) return FAILED;
    if (word === "true") return true;
    if (word === "false") return false;
    if (word === "null") return null;
    if (word === "undefined") return undefined;
    if (word === "NaN") return NaN;
    if (word === "new") return this.constructed(depth);
    this.pos = start;
    return FAILED;
  }

  /** `new Map([[k, v], …])` as an object, `new Array()` (with a type argument or not) as an empty list. */
  private constructed(depth: number): unknown {
    this.skipSpace();
    const kind = this.word();
    if (this.eat("<") && !this.skipTo(">")) return FAILED;
    this.eat(">");
    if (!this.eat("(")) return FAILED;
    if (kind === "Array" && this.eat(")")) return [];
    if (kind !== "Map") return FAILED;
    if (this.eat(")")) return {};
    const entries = this.array(depth + 1);
    if (!this.eat(")") || !Array.isArray(entries)) return FAILED;
    const map: Record<string, unknown> = {};
    for (const entry of entries) {
      if (!Array.isArray(entry) || entry.length !== 2 || (typeof entry[0] !== "string" && typeof entry[0] !== "number")) return FAILED;
      setData(map, String(entry[0]), entry[1]);
    }
    return map;
  }

  private object(depth: number): unknown {
    this.pos++; // {
    const out: Record<string, unknown> = {};
    for (;;) {
      if (this.eat("}")) return out;
      this.skipSpace();
      const c = this.text[this.pos];
      let key: string | null;
      if (c === '"' || c === "'") {
        const quoted = this.stringLiteral(c);
        key = typeof quoted === "string" ? quoted : null;
      } else {
        NUMBER.lastIndex = this.pos;
        const n = /\d/.test(c ?? "") ? NUMBER.exec(this.text) : null;
        if (n !== null) {
          this.pos += n[0].length;
          key = String(Number(n[0]));
        } else key = this.word();
      }
      if (key === null || !this.eat(":")) return FAILED;
      const value = this.valueOrExpression(depth + 1);
      setData(out, key, value);
      if (!this.eat(",")) return this.eat("}") ? out : FAILED;
    }
  }

  private array(depth: number): unknown {
    this.pos++; // [
    const out: unknown[] = [];
    for (;;) {
      if (this.eat("]")) return out;
      out.push(this.valueOrExpression(depth + 1));
      if (!this.eat(",")) return this.eat("]") ? out : FAILED;
    }
  }
}

/** `key` as an own property of `out`: one named `__proto__` is kept as data, never set as the prototype. */
function setData(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}
