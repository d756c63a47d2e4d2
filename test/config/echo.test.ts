/**
 * How a reply shows app-written text that carries a config's values
 * (`safeText`): mentions and HTML are neutralised outside code spans, and
 * code spans, which show their content literally, are left as they are.
 */
import { describe, expect, it } from "vitest";
import { echo } from "../../src/config/echo.js";
import { safeText } from "../../src/github/safe-text.js";
import { mentionsIn } from "../support/app-harness.js";

describe("safeText", () => {
  it("neutralises mentions and HTML outside code spans", () => {
    expect(safeText("ask @alice <b>now</b>")).toBe("ask @\u200balice &lt;b>now&lt;/b>");
  });

  it("leaves a code span as it is: its content shows literally, so `<` must not become `&lt;`", () => {
    expect(safeText("not `<img src=x> @alice`, say @bob")).toBe("not `<img src=x> @alice`, say @\u200bbob");
    expect(safeText("not ``a`<b>`` <i>")).toBe("not ``a`<b>`` &lt;i>");
  });

  it("treats backticks without their closer, or escaped, as text", () => {
    expect(safeText("a ` @alice <b>")).toBe("a ` @\u200balice &lt;b>");
    expect(safeText("a ``x` @alice")).toBe("a ``x` @\u200balice");
    expect(safeText("a \\`@alice` <b>")).toBe("a \\`@\u200balice` &lt;b>");
  });

  it("does not pair backticks across lines: markdown would not, in another list item", () => {
    expect(safeText("- a ` @alice\n- b ` @bob")).toBe("- a ` @\u200balice\n- b ` @\u200bbob");
  });

  it("shows every echoed value without a mention or HTML, whatever its backticks", () => {
    for (const value of ["@alice", "`@alice`", "``@alice`", "a`@alice`b", "x` @alice `y", "<img src=x>`@a", "\\`@alice`"]) {
      const shown = safeText(`not ${echo(value)} and @bob`);
      expect(mentionsIn(shown)).toEqual([]);
      expect(shown.replace(/(`+)[\s\S]*?\1/g, "")).not.toContain("<");
    }
  });
});
