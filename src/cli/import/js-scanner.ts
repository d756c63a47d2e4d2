/**
 * The scanning under js-exports.ts: a position in a module's text, moved
 * over spaces, comments, words, string literals and balanced brackets,
 * without reading what the code means and never running it. Each step moves
 * forward or stays; none backtracks over more than the construct it reads.
 */

/** What a reader returns for text that is not the literal it reads. */
export const FAILED = Symbol("not a literal");

const IDENT = /[A-Za-z_$][\w$]*/y;
// Read where they stand (sticky), so that an escape costs its own length, not the rest of the text.
const HEX_ESCAPE = /[\da-fA-F]{2}/y;
const UNICODE_ESCAPE = /[\da-fA-F]{4}|\{[\da-fA-F]{1,6}\}/y;

export class JsScanner {
  pos = 0;
  constructor(readonly text: string) {}

  more(): boolean {
    return this.pos < this.text.length;
  }

  /** Skips spaces and comments; true (to chain in a condition). */
  skipSpace(): true {
    const t = this.text;
    for (;;) {
      while (this.pos < t.length && /\s/.test(t[this.pos]!)) this.pos++;
      if (t.startsWith("//", this.pos) || (this.pos === 0 && t.startsWith("#!"))) {
        const end = t.indexOf("\n", this.pos);
        this.pos = end === -1 ? t.length : end + 1;
      } else if (t.startsWith("/*", this.pos)) {
        const end = t.indexOf("*/", this.pos + 2);
        this.pos = end === -1 ? t.length : end + 2;
      } else return true;
    }
  }

  protected word(): string | null {
    IDENT.lastIndex = this.pos;
    const m = IDENT.exec(this.text);
    if (m === null) return null;
    this.pos += m[0].length;
    return m[0];
  }

  protected eat(s: string): boolean {
    this.skipSpace();
    if (!this.text.startsWith(s, this.pos)) return false;
    this.pos += s.length;
    return true;
  }

  protected stringLiteral(quote: string): unknown {
    const t = this.text;
    let out = "";
    for (let i = this.pos + 1; i < t.length; i++) {
      const c = t[i]!;
      if (c === quote) {
        this.pos = i + 1;
        return out;
      }
      if (c === "\n") return FAILED;
      if (c !== "\\") {
        out += c;
        continue;
      }
      const next = t[++i];
      if (next === undefined) return FAILED;
      const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", v: "\v", 0: "\0", "\n": "" };
      if (next in simple) out += simple[next];
      else if (next === "u" || next === "x") {
        const escape = next === "x" ? HEX_ESCAPE : UNICODE_ESCAPE;
        escape.lastIndex = i + 1;
        const m = escape.exec(t);
        if (m === null) return FAILED;
        const code = parseInt(m[0].replace(/[{}]/g, ""), 16);
        if (code > 0x10ffff) return FAILED;
        out += String.fromCodePoint(code);
        i += m[0].length;
      } else out += next;
    }
    return FAILED;
  }

  /** A template literal without `${…}`, as its text. */
  protected templateLiteral(): unknown {
    const end = this.text.indexOf("`", this.pos + 1);
    if (end === -1) return FAILED;
    const body = this.text.slice(this.pos + 1, end);
    if (body.includes("${") || body.includes("\\")) return FAILED;
    this.pos = end + 1;
    return body;
  }

  /**
   * Moves to the next of `stops` outside brackets, strings and comments (or
   * to a line that starts a new statement, when `statementEnds`); false at
   * the end of the text. A closing bracket of an enclosing construct stops too.
   */
  skipTo(stops: string, statementEnds = false): boolean {
    const t = this.text;
    let depth = 0;
    while (this.pos < t.length) {
      const c = t[this.pos]!;
      if (depth === 0 && stops.includes(c)) return true;
      if (c === '"' || c === "'" || c === "`") {
        this.skipQuoted(c);
        continue;
      }
      if (t.startsWith("//", this.pos)) {
        // To the line's end, not past it: the line break may end the statement.
        const end = t.indexOf("\n", this.pos);
        this.pos = end === -1 ? t.length : end;
        continue;
      }
      if (t.startsWith("/*", this.pos)) {
        const end = t.indexOf("*/", this.pos + 2);
        this.pos = end === -1 ? t.length : end + 2;
        continue;
      }
      if (c === "(" || c === "[" || c === "{" || (c === "<" && stops === ">")) depth++;
      else if (c === ")" || c === "]" || c === "}" || (c === ">" && stops === ">" && depth > 0)) {
        if (depth === 0) return true;
        depth--;
      } else if (statementEnds && depth === 0 && c === "\n" && /^\s*(?:export\b|exports\b|module\.exports\b|const\b|let\b|var\b|import\b)/.test(t.slice(this.pos, this.pos + 40))) {
        return true;
      }
      this.pos++;
    }
    return false;
  }

  private skipQuoted(quote: string): void {
    const t = this.text;
    for (let i = this.pos + 1; i < t.length; i++) {
      if (t[i] === "\\") i++;
      else if (t[i] === quote) {
        this.pos = i + 1;
        return;
      } else if (quote !== "`" && t[i] === "\n") {
        // Unclosed on its line: the line break may end the statement.
        this.pos = i;
        return;
      }
    }
    this.pos = t.length;
  }

  /** To the end of the statement: past its `;`, or to the line that starts the next. */
  skipStatement(): void {
    this.skipTo(";", true);
    if (this.text[this.pos] === ";") this.pos++;
    else if (this.pos < this.text.length && /[)\]}]/.test(this.text[this.pos]!)) this.pos++;
  }
}
