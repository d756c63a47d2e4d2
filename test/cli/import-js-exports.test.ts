/**
 * readJsExports: the values a config module exports, read as text and never
 * run. The literal forms config files are written in; what is not a literal
 * kept as its source text; statements that export nothing skipped; and
 * hostile input (deep nesting, `__proto__`, unclosed strings) answered
 * without a crash or a polluted prototype.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsExpression, readJsExports } from "../../src/cli/import/js-exports.js";

describe("readJsExports", () => {
  it("reads the literals config files are written in", () => {
    const text = `
      /* header */ "use strict";
      // a comment
      exports.values = {
        single: 'it\\'s', double: "a \\"b\\" \\u00e9\\x41", template: \`plain\`,
        ints: [0, -3, 1_000, 0x1F], decimal: 1.5, exp: 2e3, infinite: Infinity, negative: -Infinity,
        flags: [true, false, null, undefined],
        "quoted key": 1, 42: "numeric key",
        map: new Map([["a: b", 1], ["c", [2]]]), empty: new Map(), list: new Array<string>(),
        trailing: [1, 2,],
      };
    `;
    expect(readJsExports(text)).toEqual({
      values: {
        single: "it's",
        double: 'a "b" éA',
        template: "plain",
        ints: [0, -3, 1000, 31],
        decimal: 1.5,
        exp: 2000,
        infinite: Infinity,
        negative: -Infinity,
        flags: [true, false, null, undefined],
        "quoted key": 1,
        42: "numeric key",
        map: { "a: b": 1, c: [2] },
        empty: {},
        list: [],
        trailing: [1, 2],
      },
    });
  });

  it("reads each way a module exports: exports.x, module.exports.x, module.exports = {…}, export const (typed, as const), export default", () => {
    expect(readJsExports("exports.a = 1;\nmodule.exports.b = 2\nexports.c = 3")).toEqual({ a: 1, b: 2, c: 3 });
    expect(readJsExports("module.exports = { a: 1, b: [2] };")).toEqual({ a: 1, b: [2] });
    expect(readJsExports("export const a: Record<string, number[]> = { x: [1] };\nexport let b = 'y' as const;\nexport var c = 3 satisfies number;")).toEqual({
      a: { x: [1] },
      b: "y",
      c: 3,
    });
    expect(readJsExports("export default { a: 1 };")).toEqual({ a: 1 });
  });

  it("keeps what is not a literal as its source text, and skips statements that export nothing", () => {
    const text = [
      'import process from "node:process";',
      'const secrets = require("./secrets.json");',
      "function helper() { return { exports: 1 }; }",
      "exports.auth = { token: process.env.TOKEN || secrets.token, user: \"bot\" };",
      "exports.delay = compute(1, [2, 3]);",
      "module.exports = require('lodash').merge(exports, custom);",
    ].join("\n");
    const read = readJsExports(text)!;
    expect(Object.keys(read)).toEqual(["auth", "delay", "module.exports"]);
    expect(read["auth"]).toEqual({ token: new JsExpression("process.env.TOKEN || secrets.token"), user: "bot" });
    expect(read["delay"]).toEqual(new JsExpression("compute(1, [2, 3])"));
    expect(read["module.exports"]).toEqual(new JsExpression("require('lodash').merge(exports, custom)"));
  });

  it("is null for text that exports nothing", () => {
    expect(readJsExports("const a = 1;\nconsole.log(a);\n")).toBeNull();
    expect(readJsExports("")).toBeNull();
    expect(readJsExports("exports == 1;")).toBeNull();
  });

  it("keeps `__proto__` as data: the objects it returns have Object's prototype, and Object's is untouched", () => {
    const read = readJsExports('exports.x = { "__proto__": { polluted: true }, __proto__: { again: 1 } };\nexports.m = new Map([["__proto__", { p: 1 }]]);')!;
    for (const name of ["x", "m"]) {
      const x = read[name] as Record<string, unknown>;
      expect(Object.getPrototypeOf(x)).toBe(Object.prototype);
      expect(Object.keys(x)).toEqual(["__proto__"]);
    }
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it("answers hostile text without a crash: deep nesting, unclosed strings and comments, a megabyte of brackets", () => {
    // Read to a depth no config needs; below it, the rest is kept as text.
    const deep = `exports.x = ${"[".repeat(100_000)}1${"]".repeat(100_000)};\nexports.y = 2;`;
    const read = readJsExports(deep)!;
    let depth = 0;
    let value = read["x"];
    for (; Array.isArray(value); depth++) value = value[0];
    expect(value).toBeInstanceOf(JsExpression);
    expect(depth).toBeLessThanOrEqual(65);
    expect(read["y"]).toBe(2);
    expect(readJsExports('exports.x = "unclosed\nexports.y = 2;')).toEqual({ x: new JsExpression('"unclosed'), y: 2 });
    expect(readJsExports("exports.x = 1; /* never closed")).toEqual({ x: 1 });
    expect(readJsExports(`exports.x = ${"{".repeat(500_000)}`)!["x"]).toBeInstanceOf(JsExpression);
  });

  it("never throws, whatever the text: fragments of modules in any order", () => {
    const fragment = fc.constantFrom(
      "exports.", "module.exports", "export const ", "export default ", " = ", "x", ": T", "{", "}", "[", "]", "(", ")", ",", ";", "\n",
      '"', "'", "`", "\\", "//", "/*", "*/", "new Map(", "new Array<", ">", "1", "-", "Infinity", "as const", "__proto__", "${",
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(fragment, fc.string({ maxLength: 3 })), { maxLength: 60 }), (parts) => {
        const read = readJsExports(parts.join(""));
        expect(read === null || typeof read === "object").toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
