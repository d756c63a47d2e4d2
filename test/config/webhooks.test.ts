/**
 * `webhooks:` in `.github/issue-leases.yml`: its defaults, each mistake told
 * at its key (and its line and column in a config check), a refused target
 * naming its host but never the rest of the URL, and the operator's
 * `EVENTS_WEBHOOK_ALLOW_PRIVATE=1` given to the parse.
 */
import { describe, expect, it } from "vitest";
import { parseConfig, type ConfigResult } from "../../src/config/config.js";
import { checkConfig, problemLine } from "../../src/config/config-check.js";
import { type ConfigFile, parseConfigFile } from "../../src/config/files.js";
import { targetPolicy } from "../../src/settings/work-settings.js";
import { LEASE_EVENT_TYPES } from "../../src/ledger/events/event-types.js";

const FILE = ".github/issue-leases.yml";

const errorOf = (r: ConfigResult) => (r.ok ? `(valid: ${JSON.stringify(r.config.webhooks)})` : r.error);
const targetsOf = (r: ConfigResult) => {
  if (!r.ok) throw new Error(r.error);
  return r.config.webhooks;
};

describe("webhooks", () => {
  it("is none by default; a target's events default to every type, its format to json", () => {
    expect(targetsOf(parseConfig({}))).toEqual([]);
    expect(targetsOf(parseConfig({ webhooks: [{ url: "https://Example.com/hooks/leases" }] }))).toEqual([
      { url: "https://example.com/hooks/leases", events: LEASE_EVENT_TYPES, format: "json" },
    ]);
  });

  it("refuses literal addresses of the app's own network, naming `webhooks` and the host but not the URL's path", () => {
    const loopback = errorOf(parseConfig({ webhooks: [{ url: "https://127.0.0.1:8080/secret-path" }] }));
    expect(loopback).toBe(
      "`.github/issue-leases.yml`: `webhooks.0.url`: `127.0.0.1` is a loopback address, and a repository's config may not make the app " +
        "call into its own network (the operator can allow loopback and private addresses with `EVENTS_WEBHOOK_ALLOW_PRIVATE=1`).",
    );
    const metadata = errorOf(parseConfig({ webhooks: [{ url: "http://169.254.169.254/latest/meta-data/iam" }] }));
    expect(metadata).toBe("`.github/issue-leases.yml`: `webhooks.0.url`: `169.254.169.254` is a cloud metadata address; the app never sends webhooks there.");
    for (const error of [loopback, metadata]) expect(error).not.toMatch(/secret-path|meta-data/);
  });

  it("takes loopback and private targets (and http) once the operator allows them, never link-local or metadata", () => {
    const allowing = targetPolicy({ EVENTS_WEBHOOK_ALLOW_PRIVATE: "1" });
    expect(targetsOf(parseConfig({ webhooks: [{ url: "http://127.0.0.1:8080/hook" }, { url: "https://10.1.2.3/x" }] }, undefined, allowing)).map((t) => t.url)).toEqual([
      "http://127.0.0.1:8080/hook",
      "https://10.1.2.3/x",
    ]);
    expect(errorOf(parseConfig({ webhooks: [{ url: "https://169.254.169.254/" }] }, undefined, allowing))).toContain("cloud metadata address");
    expect(errorOf(parseConfig({ webhooks: [{ url: "https://[fe80::1]/" }] }, undefined, allowing))).toContain("link-local");
  });

  it.each([
    ["not a list", { url: "https://example.com/" }, "`webhooks`: must be a list of targets"],
    ["a target without url", [{ events: ["lease.acquired"] }], "`webhooks.0.url`: must be the receiver's URL"],
    ["an unknown event", [{ url: "https://example.com/", events: ["lease.claimed"] }], "`webhooks.0.events.0`: `lease.claimed` is not an event type; use `lease.acquired`"],
    ["no events", [{ url: "https://example.com/", events: [] }], "`webhooks.0.events`: lists no event; leave `events` out to send every type."],
    ["an unknown format", [{ url: "https://example.com/", format: "xml" }], "`webhooks.0.format`: must be `json` or `slack`, not `xml`."],
    ["an unknown key", [{ url: "https://example.com/", secret: "x" }], "`webhooks.0.secret`: unknown key; the keys here are `url`, `events`, `format`."],
    ["a URL twice", [{ url: "https://example.com/a" }, { url: "https://EXAMPLE.com/a" }], "`webhooks.1.url`: names a URL already listed."],
    ["too many targets", Array.from({ length: 6 }, (_, i) => ({ url: `https://example.com/${i}` })), "`webhooks`: lists 6 targets; at most 5 are allowed."],
    ["a URL with a password", [{ url: "https://me:pw@example.com/" }], "`webhooks.0.url`: must not carry a user or a password"],
  ])("refuses %s, saying so at its key", (_, webhooks, text) => {
    expect(errorOf(parseConfig({ webhooks }))).toContain(text);
  });

  it("tells a refused target at its line and column in a config check", () => {
    const text = "queue: true\nwebhooks:\n  - url: https://example.com/ok\n  - url: https://[::ffff:127.0.0.1]/x\n    format: slack\n";
    const check = checkConfig([parseConfigFile({ owner: "acme", repo: "widgets", path: FILE }, true, text) as ConfigFile], FILE);
    expect(check.ok ? [] : check.problems.map(problemLine)).toEqual([
      `${FILE}:4:5: \`webhooks.1.url\`: \`[::ffff:7f00:1]\` is a loopback address, and a repository's config may not make the app call into its own network ` +
        "(the operator can allow loopback and private addresses with `EVENTS_WEBHOOK_ALLOW_PRIVATE=1`).",
    ]);
  });

  it("names no host from a file other than the repository's own", () => {
    const files = [
      parseConfigFile({ owner: "acme", repo: "widgets", path: FILE }, true, "bots: true\n"),
      parseConfigFile({ owner: "acme", repo: "shared", path: "conf/leases.yml" }, false, "webhooks:\n  - url: https://10.0.0.7/hook\n"),
    ];
    const check = checkConfig(files as ConfigFile[], FILE);
    const lines = check.ok ? [] : check.problems.map(problemLine);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^acme\/shared:conf\/leases\.yml:2:5: `webhooks\.0\.url`: its host is a private address/);
    expect(lines[0]).not.toContain("10.0.0.7");
  });
});
