/**
 * What an installation token reaches (src/api/token-scope.ts), against a
 * fake of the one call it makes (ReachGitHub: a page of
 * `GET /installation/repositories`), by table: how many pages it reads,
 * when the list counts as partial, and what a refusal between pages means.
 */
import { describe, expect, it } from "vitest";
import { MAX_SCOPE_PAGES, tokenScope } from "../../src/api/token-scope.js";
import type { ReachedPage, ReachGitHub } from "../../src/github/caller-port.js";

/** An installation reaching `total` repositories (ids 1…total, owner 7), 100 a page; `answers` overrides a page's answer. */
function reaching(total: number, answers: Record<number, "refused" | "none"> = {}): ReachGitHub & { asked: number[] } {
  const asked: number[] = [];
  return {
    asked,
    async reachedPage(_token, page): Promise<ReachedPage | "refused" | "none"> {
      asked.push(page);
      if (answers[page]) return answers[page];
      const first = (page - 1) * 100 + 1;
      const ids = Array.from({ length: Math.max(0, Math.min(100, total - first + 1)) }, (_, i) => first + i);
      return { total, repos: ids.map((id) => ({ id, owner: 7 })) };
    },
  };
}

describe("tokenScope", () => {
  const cases: Array<[string, number, Record<number, "refused" | "none">, { pages: number; reached: number; partial: boolean } | null]> = [
    ["one page for a token that reaches one repository", 1, {}, { pages: 1, reached: 1, partial: false }],
    ["every page of 250 repositories, the first alone", 250, {}, { pages: 3, reached: 250, partial: false }],
    ["at most MAX_SCOPE_PAGES pages, the rest counted as not reached", MAX_SCOPE_PAGES * 100 + 1, {}, { pages: MAX_SCOPE_PAGES, reached: MAX_SCOPE_PAGES * 100, partial: true }],
    ["none for a token that is not an installation's", 5, { 1: "none" }, { pages: 1, reached: 0, partial: false }],
    ["null for a token GitHub refuses", 5, { 1: "refused" }, null],
    ["null for a token refused between two pages: what it reached then is unknown", 250, { 3: "refused" }, null],
  ];
  it.each(cases)("reads %s", async (_name, total, answers, expected) => {
    const github = reaching(total, answers);
    const scope = await tokenScope(github, "ghs_token");
    if (expected === null) return expect(scope).toBeNull();
    expect({ pages: github.asked.length, reached: scope?.repos.size, partial: scope?.partial }).toEqual(expected);
    expect(github.asked[0]).toBe(1);
  });

  it("keys two tokens of one installation alike, and two installations apart", async () => {
    const a = await tokenScope(reaching(3), "ghs_one");
    const b = await tokenScope(reaching(3), "ghs_two");
    const c = await tokenScope(reaching(4), "ghs_three");
    expect(a?.key).toBe(b?.key);
    expect(a?.key).not.toBe(c?.key);
  });
});
