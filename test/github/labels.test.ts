/**
 * Which labels are the app's own: the names its templates make, for every
 * login GitHub allows, underscores included (Enterprise Managed Users), and
 * no others.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../../src/config/config.js";
import { desiredLabels, holderLabel, labelKind, labelSubject } from "../../src/github/labels.js";

const templates = DEFAULT_CONFIG.labels;
const lease = (login: string, token = 3) => ({ repoId: 1, repo: "o/r", issue: 1, holder: { id: 1, login }, token, acquiredAt: 0, expiresAt: null, heldBy: { kind: "time" as const } });

describe("labelKind", () => {
  it.each(["alice", "alice_contoso", "mona-lisa_octo-corp", "A1_b2", "dependabot[bot]", "x"])(
    "recognises the holder label the app makes for %s",
    (login) => {
      const names = desiredLabels(templates, lease(login)).map((l) => l.name);
      expect(names.map((name) => labelKind(templates, name))).toEqual(["claimed", "holder", "token"]);
    },
  );

  it("recognises underscore holder labels under a custom template, case-insensitively", () => {
    const custom = { ...templates, holder: "taken by {holder} (lease)" };
    expect(labelKind(custom, holderLabel(custom.holder, "alice_contoso"))).toBe("holder");
    expect(labelKind(custom, "Taken By ALICE_CONTOSO (lease)")).toBe("holder");
  });

  it.each(["claimed-by: alice contoso", "claimed-by: ", "claimed-by: a.b", "claimed-by: @alice", "bug", "lease #x", "good first issue"])(
    "leaves %j alone",
    (name) => {
      expect(labelKind(templates, name)).toBeNull();
    },
  );
});

describe("labelSubject", () => {
  it.each(["alice", "alice_contoso", "dependabot[bot]", "x"])("reads %s and the token back from the labels the app makes", (login) => {
    const [, holder, token] = desiredLabels(templates, lease(login, 42)).map((l) => l.name);
    expect(labelSubject(templates, holder!)).toEqual({ login });
    expect(labelSubject(templates, token!)).toEqual({ token: 42 });
    expect(labelSubject(templates, holder!.toUpperCase())).toEqual({ login: login.toUpperCase() });
  });

  it("null for a name that carries neither, or one cut to 50 characters (its hash cannot be read back)", () => {
    const long = holderLabel(templates.holder as string, `a${"b".repeat(60)}`);
    expect(long).toHaveLength(50);
    for (const name of ["claimed", "bug", "lease #x", "claimed-by: a.b", long]) expect(labelSubject(templates, name)).toBeNull();
  });

  it("both, when the two templates could make the same name", () => {
    const overlapping = { ...templates, holder: "who-{holder}", token: "who-{token}" };
    expect(labelSubject(overlapping, "who-123")).toEqual({ login: "123", token: 123 });
    expect(labelSubject(overlapping, "who-alice")).toEqual({ login: "alice" });
  });

  it("null for a template the value does not come back out of (the placeholder twice)", () => {
    const twice = { ...templates, holder: "{holder} by {holder}" };
    expect(labelSubject(twice, holderLabel(twice.holder, "alice"))).toBeNull();
  });
});
