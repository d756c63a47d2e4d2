/**
 * Which labels are the app's own: the names its templates make, for every
 * login GitHub allows, underscores included (Enterprise Managed Users), and
 * no others.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_CONFIG } from "../../src/config/config.js";
import { desiredLabels, holderLabel, labelKind } from "../../src/github/labels.js";

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
