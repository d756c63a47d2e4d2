/**
 * The manual's examples are rendered by the app's own code: this renders
 * them again and compares them with what is checked in, so a change to a
 * reply, a label or the lease check that the docs do not follow fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { examplesDoc, readmeBlock, readmeExamples, spliceReadme } from "../../scripts/render-examples.js";

const root = join(import.meta.dirname, "../..");
const read = (path: string) => readFileSync(join(root, path), "utf8");
const FIX = "is out of date with the renderer: run `npm run docs:examples` and commit the result";

describe("generated examples", () => {
  it("docs/examples.md is what the renderer gives", () => {
    expect(read("docs/examples.md"), `docs/examples.md ${FIX}`).toBe(examplesDoc());
  });

  it("the README's examples block is what the renderer gives", () => {
    const block = readmeBlock(read("README.md"));
    expect(block, "README.md lacks its <!-- examples:start --> … <!-- examples:end --> markers").not.toBeNull();
    expect(block, `README.md's examples block ${FIX}`).toBe(readmeExamples());
  });

  it("shows every outcome a reply can have", () => {
    const doc = examplesDoc();
    for (const outcome of ["acquired", "held", "renewed", "not_holder", "released", "expired", "reminded", "invalid", "forbidden", "status"]) {
      expect(doc).toContain(`"outcome":"${outcome}"`);
    }
    for (const conclusion of ["success", "failure", "neutral"]) expect(doc).toContain(`Conclusion \`${conclusion}\``);
  });

  it("splicing is stable: a second run changes nothing", () => {
    const once = spliceReadme("a\n<!-- examples:start -->\nold\n<!-- examples:end -->\nb\n", "new");
    expect(spliceReadme(once, "new")).toBe(once);
    expect(readmeBlock(once)).toBe("new");
    expect(() => spliceReadme("no markers", "new")).toThrow(/markers/);
  });
});
