/**
 * The gate a fork's config check follows `_extends` through
 * (src/config/fork-extends.ts), against a fake of the one call it makes
 * (ForkGateGitHub: a repository as the installation sees it), by table.
 */
import { describe, expect, it } from "vitest";
import { type ForkGateGitHub, forkExtendsGate } from "../../src/config/fork-extends.js";
import type { RepositoryJson } from "../../src/github/installation-port.js";

const BASE = { owner: "Octo-Org", repo: "Widgets" };

/** The installation's view of GitHub: repositories by `owner/name`, absent ones answered as GitHub's 404 (null). */
function seeing(repos: Record<string, Pick<RepositoryJson, "private" | "visibility">>): ForkGateGitHub & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async repository(r) {
      asked.push(`${r.owner}/${r.repo}`);
      const seen = repos[`${r.owner}/${r.repo}`];
      return seen ? ({ id: 1, name: r.repo, full_name: `${r.owner}/${r.repo}`, owner: { login: r.owner }, ...seen } as RepositoryJson) : null;
    },
  };
}

describe("forkExtendsGate", () => {
  const github = seeing({
    "octo-org/shared": { private: false, visibility: "public" },
    "octo-org/secrets": { private: true, visibility: "private" },
    "octo-org/inner": { private: true, visibility: "internal" },
  });
  const gate = forkExtendsGate(github, BASE);
  const cases: Array<[string, string, boolean]> = [
    ["the base repository itself, in any case, without asking", "octo-org/widgets", true],
    ["a public repository", "octo-org/shared", true],
    ["a private repository", "octo-org/secrets", false],
    ["an internal repository (private to its enterprise)", "octo-org/inner", false],
    ["a repository the installation does not see, or that does not exist", "octo-org/nowhere", false],
  ];
  it.each(cases)("lets a fork's `_extends` read %s: %s -> %s", async (_what, full, allowed) => {
    const [owner, repo] = full.split("/") as [string, string];
    expect(await gate({ owner, repo, path: ".github/issue-leases.yml" })).toBe(allowed);
  });

  it("asks GitHub about every repository but the base", () => {
    expect(github.asked).toEqual(["octo-org/shared", "octo-org/secrets", "octo-org/inner", "octo-org/nowhere"]);
  });

  it("throws GitHub's other errors, for the delivery to retry", async () => {
    const down: ForkGateGitHub = { repository: () => Promise.reject(Object.assign(new Error("Bad gateway"), { status: 502 })) };
    await expect(forkExtendsGate(down, BASE)({ owner: "octo-org", repo: "shared", path: "x.yml" })).rejects.toMatchObject({ status: 502 });
  });
});
