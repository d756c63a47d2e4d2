/**
 * A repository's config and its organisation's: which files are read (each
 * request mocked strictly), how they are merged as Probot's `context.config`
 * merges them, and how the organisation's `max_leases_per_holder_in_org`
 * applies (the strictest limit wins).
 */
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UnreadableConfig } from "../../src/config/config.js";
import { parseConfigSources, readConfigSources } from "../../src/config/sources.js";
import { API, strictNock, UnthrottledOctokit } from "../support/app-harness.js";

const FILE = "/contents/.github%2Fissue-leases.yml";
const REPO = "/repos/acme/widgets";
const ORG = "/repos/acme/.github";

function context() {
  const octokit = new UnthrottledOctokit({ auth: "test-token" });
  return { octokit, repo: () => ({ owner: "acme", repo: "widgets" }) } as unknown as Parameters<typeof readConfigSources>[0];
}

const file = (path: string, yaml: string | null) => {
  const scope = nock(API).get(path + FILE);
  if (yaml === null) scope.reply(404, { message: "Not Found" });
  else scope.reply(200, yaml, { "content-type": "text/plain" });
};

describe("readConfigSources", () => {
  let mock: ReturnType<typeof strictNock>;
  beforeEach(() => {
    mock = strictNock();
  });
  afterEach(() => mock.verify());

  it("reads the repository's file, then the organisation's: both are kept apart", async () => {
    file(REPO, "max_leases_per_holder: 2\n");
    file(ORG, "max_leases_per_holder_in_org: 3\ndefault_ttl: 1d\n");
    expect(await readConfigSources(context())).toMatchObject({
      repo: { max_leases_per_holder: 2 },
      org: { max_leases_per_holder_in_org: 3, default_ttl: "1d" },
    });
  });

  it("reads the organisation's file once when the repository has none (Probot's fallback is the organisation's file)", async () => {
    file(REPO, null);
    file(ORG, "max_leases_per_holder_in_org: 3\n");
    expect(await readConfigSources(context())).toMatchObject({ repo: { max_leases_per_holder_in_org: 3 }, org: { max_leases_per_holder_in_org: 3 } });
  });

  it("reads nothing more when neither exists", async () => {
    file(REPO, null);
    file(ORG, null);
    expect(await readConfigSources(context())).toMatchObject({ repo: null, org: null });
  });

  it("merges `_extends` as context.config does (deeply), and reads the organisation's file once when it is the one extended", async () => {
    file(REPO, "_extends: .github\nlabels:\n  claimed: taken\n");
    file(ORG, "max_leases_per_holder_in_org: 4\nlabels:\n  holder: 'by {holder}!'\n");
    expect(await readConfigSources(context())).toMatchObject({
      repo: { max_leases_per_holder_in_org: 4, labels: { claimed: "taken", holder: "by {holder}!" } },
      org: { max_leases_per_holder_in_org: 4, labels: { holder: "by {holder}!" } },
    });
  });

  it("reads the organisation's file alone for its limit: its `_extends` is not followed (only its own key counts)", async () => {
    file(REPO, "bots: true\n");
    file(ORG, "_extends: elsewhere\nmax_leases_per_holder_in_org: 2\n");
    const sources = await readConfigSources(context());
    expect(parseConfigSources(sources)).toMatchObject({ ok: true, config: { maxLeasesPerHolderInOrg: 2 } });
  });

  it("does not read the organisation's file after a broken file of the repository's own", async () => {
    file(REPO, "max_leases_per_holder: lots\n");
    expect(await readConfigSources(context())).toMatchObject({ repo: { max_leases_per_holder: "lots" }, org: null });
  });

  it("hands over YAML that does not parse as UnreadableConfig, the repository's or the organisation's", async () => {
    file(REPO, "bots: [\n");
    expect((await readConfigSources(context())).repo).toBeInstanceOf(UnreadableConfig);
    file(REPO, "bots: true\n");
    file(ORG, "bots: [\n");
    expect((await readConfigSources(context())).org).toBeInstanceOf(UnreadableConfig);
  });

  it("throws GitHub's errors, which are not the config's", async () => {
    nock(API).get(REPO + FILE).reply(500, { message: "boom" });
    await expect(readConfigSources(context())).rejects.toMatchObject({ status: 500 });
    file(REPO, "bots: true\n");
    nock(API).get(ORG + FILE).reply(502, { message: "bad gateway" });
    await expect(readConfigSources(context())).rejects.toMatchObject({ status: 502 });
  });
});

describe("parseConfigSources", () => {
  const limitOf = (repo: unknown, org: unknown) => {
    const result = parseConfigSources({ repo, org });
    if (!result.ok) throw new Error(result.error);
    return result.config.maxLeasesPerHolderInOrg;
  };

  it("takes the strictest of the repository's and the organisation's limits, 0 being none", () => {
    expect(limitOf(null, null)).toBe(0);
    expect(limitOf({}, { max_leases_per_holder_in_org: 3 })).toBe(3);
    expect(limitOf({ max_leases_per_holder_in_org: 5 }, { max_leases_per_holder_in_org: 3 })).toBe(3);
    expect(limitOf({ max_leases_per_holder_in_org: 2 }, { max_leases_per_holder_in_org: 3 })).toBe(2);
    expect(limitOf({ max_leases_per_holder_in_org: 2 }, {})).toBe(2);
    expect(limitOf({ max_leases_per_holder_in_org: 0 }, { max_leases_per_holder_in_org: 4 })).toBe(4);
    expect(limitOf({ max_leases_per_holder_in_org: 4 }, { max_leases_per_holder_in_org: 0 })).toBe(4);
  });

  it("applies only that key of the organisation's file to a repository with a file of its own", () => {
    const result = parseConfigSources({ repo: { bots: true }, org: { bots: false, default_ttl: "soon", max_leases_per_holder_in_org: 2 } });
    expect(result).toMatchObject({ ok: true, config: { bots: true, maxLeasesPerHolderInOrg: 2 } });
    if (result.ok) expect(Object.isFrozen(result.config)).toBe(true);
  });

  it("answers a bad organisation limit or an unreadable organisation file with an error naming that file", () => {
    const bad = parseConfigSources({ repo: {}, org: { max_leases_per_holder_in_org: -1 } });
    // Another repository's file: the rule is said, not the value.
    expect(bad).toEqual({
      ok: false,
      error: "the organisation's `.github/issue-leases.yml` (in its `.github` repository): `max_leases_per_holder_in_org`: must be 0 (no limit) or more.",
    });
    const unreadable = parseConfigSources({ repo: {}, org: new UnreadableConfig("bad") });
    expect(unreadable).toMatchObject({ ok: false, error: expect.stringContaining("the organisation's `.github/issue-leases.yml`") });
  });

  it("reports the repository's own errors first", () => {
    expect(parseConfigSources({ repo: { bots: "yes" }, org: { max_leases_per_holder_in_org: -1 } })).toMatchObject({
      ok: false,
      error: expect.stringContaining("`bots`"),
    });
  });
});
