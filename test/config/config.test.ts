import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CONFIG_FILE, CONFIG_NAME, DEFAULT_CONFIG, parseConfig, type ConfigResult } from "../../src/config/config.js";
import { configSchema } from "../../src/config/schema.js";
import { LEASE_EVENT_TYPES } from "../../src/ledger/events/event-types.js";
import { safeText } from "../../src/github/safe-text.js";
import { mentionsIn } from "../support/app-harness.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function errorOf(result: ConfigResult): string {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.config)}`);
  return result.error;
}

function configOf(result: ConfigResult) {
  if (!result.ok) throw new Error(`expected a config, got: ${result.error}`);
  return result.config;
}

describe("parseConfig defaults", () => {
  it("uses the documented defaults when there is no file or it is empty", () => {
    const expected = {
      defaultTtl: 7 * DAY,
      minTtl: MINUTE,
      maxTtl: 30 * DAY,
      reminderBefore: DAY,
      maxLeasesPerHolder: 0,
      maxRepliesPerHour: 20,
      claimers: "anyone",
      bots: true,
      assign: true,
      assignment: "ignore",
      labels: { claimed: "claimed", holder: "claimed-by: {holder}", token: "lease #{token}", inReview: "claimed: in review" },
      requireLeaseForPullRequests: false,
      limitsByLabel: [],
      maxLeasesPerHolderInOrg: 0,
      authorFirst: null,
      renewOnActivity: true,
      countInReview: false,
      exemptLabels: [],
      aliases: [],
      mentions: false,
      queue: false,
      queuePlaceTtl: DAY,
      webhooks: [],
    };
    expect(DEFAULT_CONFIG).toEqual(expected);
    for (const raw of [null, undefined, {}]) expect(configOf(parseConfig(raw))).toEqual(expected);
  });

  it("fills in keys that are not set, including single labels", () => {
    const config = configOf(parseConfig({ bots: false, labels: { claimed: "taken" } }));
    expect(config.bots).toBe(false);
    expect(config.assign).toBe(true);
    expect(config.labels).toEqual({ claimed: "taken", holder: "claimed-by: {holder}", token: "lease #{token}", inReview: "claimed: in review" });
  });

  it("returns frozen configs, which are shared between webhooks", () => {
    const config = configOf(parseConfig({ bots: false }));
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.labels)).toBe(true);
    expect(Object.isFrozen(DEFAULT_CONFIG)).toBe(true);
  });

  it("names the file for users and for Probot", () => {
    expect(CONFIG_FILE).toBe(".github/issue-leases.yml");
    expect(CONFIG_NAME).toBe("issue-leases.yml");
  });
});

describe("parseConfig keys", () => {
  it("parses every key", () => {
    const config = configOf(
      parseConfig({
        default_ttl: "2 days",
        min_ttl: "30s",
        max_ttl: "2w",
        reminder_before: "1.5h",
        max_leases_per_holder: 3,
        max_replies_per_hour: 5,
        claimers: "members",
        bots: false,
        assign: false,
        assignment: "claims",
        labels: { claimed: "in progress", holder: "taken by @{holder}", token: false, in_review: "in review" },
        require_lease_for_pull_requests: true,
        limits_by_label: { "good first issue": 1, " help wanted ": 3 },
        max_leases_per_holder_in_org: 5,
        author_first: "2d",
        renew_on_activity: false,
        count_in_review: true,
        exempt_labels: ["pinned", "long running"],
        commands: { take: "claim", "/Assign-Me": "claim", "unassign-me": "release", extend: "renew", who: "lease" },
        mentions: true,
        queue: true,
        queue_place_ttl: "6h",
        webhooks: [{ url: "https://example.com/hooks/leases", events: ["lease.acquired"] }, { url: "https://hooks.slack.com/services/T0/B0/x", format: "slack" }],
      }),
    );
    expect(config).toEqual({
      defaultTtl: 2 * DAY,
      minTtl: 30_000,
      maxTtl: 14 * DAY,
      reminderBefore: 90 * MINUTE,
      maxLeasesPerHolder: 3,
      maxRepliesPerHour: 5,
      claimers: "members",
      bots: false,
      assign: false,
      assignment: "claims",
      labels: { claimed: "in progress", holder: "taken by @{holder}", token: false, inReview: "in review" },
      requireLeaseForPullRequests: true,
      limitsByLabel: [
        { label: "good first issue", limit: 1 },
        { label: "help wanted", limit: 3 },
      ],
      maxLeasesPerHolderInOrg: 5,
      authorFirst: 2 * DAY,
      renewOnActivity: false,
      countInReview: true,
      exemptLabels: ["pinned", "long running"],
      aliases: [
        { word: "take", command: "claim" },
        { word: "assign-me", command: "claim" },
        { word: "unassign-me", command: "release" },
        { word: "extend", command: "renew" },
        { word: "who", command: "lease" },
      ],
      mentions: true,
      queue: true,
      queuePlaceTtl: 6 * 60 * MINUTE,
      webhooks: [
        { url: "https://example.com/hooks/leases", events: ["lease.acquired"], format: "json" },
        { url: "https://hooks.slack.com/services/T0/B0/x", events: LEASE_EVENT_TYPES, format: "slack" },
      ],
    });
  });

  it("refuses a malformed queue or queue_place_ttl, saying what is accepted", () => {
    expect(errorOf(parseConfig({ queue: "yes" }))).toMatch(/`queue`.*must be `true` or `false`/s);
    expect(errorOf(parseConfig({ queue_place_ttl: "none" }))).toMatch(/`queue_place_ttl`.*cannot be `none`/s);
    expect(errorOf(parseConfig({ queue_place_ttl: 12 }))).toMatch(/`queue_place_ttl`.*has no unit/s);
  });

  it("accepts none for author_first, an empty limits_by_label, and 0 for no limit", () => {
    const config = configOf(parseConfig({ author_first: "none", limits_by_label: {}, max_leases_per_holder_in_org: 0 }));
    expect(config.authorFirst).toBeNull();
    expect(config.limitsByLabel).toEqual([]);
    expect(config.maxLeasesPerHolderInOrg).toBe(0);
    expect(configOf(parseConfig({ limits_by_label: { bug: 0 } })).limitsByLabel).toEqual([{ label: "bug", limit: 0 }]);
  });

  it("accepts none for default_ttl and reminder_before", () => {
    const config = configOf(parseConfig({ default_ttl: "none", reminder_before: "None" }));
    expect(config.defaultTtl).toBeNull();
    expect(config.reminderBefore).toBeNull();
  });

  it("accepts false for every label", () => {
    const config = configOf(parseConfig({ labels: { claimed: false, holder: false, token: false, in_review: false } }));
    expect(config.labels).toEqual({ claimed: false, holder: false, token: false, inReview: false });
  });

  it("accepts each claimers value", () => {
    for (const claimers of ["anyone", "collaborators", "members"] as const) {
      expect(configOf(parseConfig({ claimers })).claimers).toBe(claimers);
    }
  });

  it("accepts a default_ttl equal to min_ttl or max_ttl", () => {
    expect(configOf(parseConfig({ default_ttl: "1m" })).defaultTtl).toBe(MINUTE);
    expect(configOf(parseConfig({ default_ttl: "30d" })).defaultTtl).toBe(30 * DAY);
  });

  it("documents every key with a description and a default", () => {
    const shape = configSchema.in.shape;
    expect(Object.keys(shape).sort()).toEqual(
      [
        "assign",
        "assignment",
        "bots",
        "claimers",
        "default_ttl",
        "labels",
        "max_leases_per_holder",
        "max_replies_per_hour",
        "max_ttl",
        "min_ttl",
        "reminder_before",
        "require_lease_for_pull_requests",
        "limits_by_label",
        "max_leases_per_holder_in_org",
        "author_first",
        "renew_on_activity",
        "count_in_review",
        "exempt_labels",
        "commands",
        "mentions",
        "queue",
        "queue_place_ttl",
        "webhooks",
      ].sort(),
    );
    for (const field of Object.values(shape)) {
      expect(field.description).toMatch(/\w/);
      expect(field.def.type).toBe("default");
    }
    for (const field of Object.values(shape.labels.def.innerType.shape)) {
      expect(field.description).toMatch(/\w/);
      expect(field.def.type).toBe("default");
    }
  });
});

describe("parseConfig errors", () => {
  const file = "`.github/issue-leases.yml`";

  it("says what a duration looks like, naming file and key", () => {
    const error = errorOf(parseConfig({ default_ttl: "3 parsecs" }));
    expect(error).toContain(file);
    expect(error).toContain("`default_ttl`");
    expect(error).toContain("`3 parsecs` is not a duration");
    expect(error).toContain("`2h`");
    expect(error).toContain("`none`");
  });

  it("rejects none where there must be a limit", () => {
    for (const key of ["min_ttl", "max_ttl"]) {
      const error = errorOf(parseConfig({ [key]: "none" }));
      expect(error).toContain(file);
      expect(error).toContain(`\`${key}\``);
      expect(error).toContain("cannot be `none`");
    }
  });

  it("rejects a bare number and asks for a unit", () => {
    const error = errorOf(parseConfig({ reminder_before: 7 }));
    expect(error).toContain("`reminder_before`");
    expect(error).toContain("no unit");
    expect(error).toContain("`7d`");
  });

  it("rejects an empty duration and false, pointing at none", () => {
    expect(errorOf(parseConfig({ max_ttl: null }))).toContain("`max_ttl`: has no value");
    expect(errorOf(parseConfig({ reminder_before: false }))).toContain("use `none`");
  });

  it("rejects durations longer than a year", () => {
    const error = errorOf(parseConfig({ max_ttl: "400d" }));
    expect(error).toContain("`max_ttl`");
    expect(error).toContain("longer than a year");
  });

  it("rejects min_ttl longer than max_ttl", () => {
    const error = errorOf(parseConfig({ min_ttl: "2d", max_ttl: "1d", default_ttl: "1d" }));
    expect(error).toContain(file);
    expect(error).toContain("`min_ttl`");
    expect(error).toContain("`max_ttl`");
    expect(error).toContain("2 days");
  });

  it("rejects a default_ttl outside [min_ttl, max_ttl], saying when it is the default", () => {
    const explicit = errorOf(parseConfig({ default_ttl: "10s" }));
    expect(explicit).toContain("`default_ttl`");
    expect(explicit).toContain("`default_ttl`: is 10 seconds, shorter than `min_ttl` (1 minute)");

    const implicit = errorOf(parseConfig({ max_ttl: "3d" }));
    expect(implicit).toContain("`default_ttl`: is 1 week (the default), longer than `max_ttl` (3 days)");
  });

  it("rejects a max_leases_per_holder that is not a whole number of at least 0", () => {
    for (const value of [-1, 1.5, "3", true]) {
      const error = errorOf(parseConfig({ max_leases_per_holder: value }));
      expect(error).toContain(file);
      expect(error).toContain("`max_leases_per_holder`");
    }
  });

  it("rejects limits that are not whole numbers of at least 0, naming the key and the label", () => {
    for (const value of [-1, 1.5, "3", true, null]) {
      const org = errorOf(parseConfig({ max_leases_per_holder_in_org: value }));
      expect(org).toContain(file);
      expect(org).toContain("`max_leases_per_holder_in_org`");
      const label = errorOf(parseConfig({ limits_by_label: { "good first issue": value } }));
      expect(label).toContain("`limits_by_label.good first issue`");
    }
  });

  it("rejects a limits_by_label that is not a mapping of label names, or names a label twice", () => {
    expect(errorOf(parseConfig({ limits_by_label: ["good first issue"] }))).toContain(
      '`limits_by_label`: must be a mapping of label names to limits, such as `"good first issue": 1`; it is a list.',
    );
    expect(errorOf(parseConfig({ limits_by_label: 1 }))).toContain("`limits_by_label`: must be a mapping");
    expect(errorOf(parseConfig({ limits_by_label: { " ": 1 } }))).toContain("is not a label name");
    expect(errorOf(parseConfig({ limits_by_label: { ["x".repeat(51)]: 1 } }))).toContain("at most 50 characters");
    const twice = errorOf(parseConfig({ limits_by_label: { Bug: 1, bug: 2 } }));
    expect(twice).toContain("`limits_by_label.bug`: names a label already listed");
  });

  it("keeps a label name with backticks from breaking the reply's code span", () => {
    const error = errorOf(parseConfig({ limits_by_label: { "a`b": "x" } }));
    expect(error).toContain("`limits_by_label.a?b`");
  });

  it("rejects an author_first that is not a duration", () => {
    const error = errorOf(parseConfig({ author_first: 2 }));
    expect(error).toContain("`author_first`");
    expect(error).toContain("`2d`");
    expect(errorOf(parseConfig({ author_first: "soon" }))).toContain("`author_first`: `soon` is not a duration");
  });

  it("rejects unknown claimers and non-boolean switches", () => {
    const claimers = errorOf(parseConfig({ claimers: "everyone" }));
    expect(claimers).toContain("`claimers`");
    expect(claimers).toContain("`collaborators`");
    expect(claimers).toContain("not `everyone`.");

    const bots = errorOf(parseConfig({ bots: "yes" }));
    expect(bots).toContain("`bots`: must be `true` or `false`");
  });

  it("rejects an assignment value other than claims or ignore, saying which are", () => {
    for (const value of ["claim", true]) {
      const error = errorOf(parseConfig({ assignment: value }));
      expect(error).toContain(file);
      expect(error).toContain("`assignment`: must be one of `claims`, `ignore`");
    }
    expect(errorOf(parseConfig({ assignment: "claim" }))).toContain("not `claim`.");
  });

  it("rejects unknown top-level keys, naming them and guessing the meant key", () => {
    const error = errorOf(parseConfig({ default_tll: "1d" }));
    expect(error).toContain(file);
    expect(error).toContain("`default_tll`: unknown key; did you mean `default_ttl`?");
    expect(errorOf(parseConfig({ defaultTtl: "1d" }))).toContain("did you mean `default_ttl`?");
    expect(errorOf(parseConfig({ colour: "red" }))).toContain("`colour`: unknown key; the keys here are `default_ttl`");
  });

  it("rejects unknown keys under labels", () => {
    const error = errorOf(parseConfig({ labels: { x: "y" } }));
    expect(error).toContain(file);
    expect(error).toContain("`labels.x`: unknown key");
    expect(error).toContain("`claimed`, `holder`, `token`");
  });

  it("rejects label names longer than 50 characters", () => {
    expect(configOf(parseConfig({ labels: { claimed: "x".repeat(50) } })).labels.claimed).toHaveLength(50);
    // GitHub counts characters, not UTF-16 units.
    expect(configOf(parseConfig({ labels: { claimed: "🔒".repeat(50) } })).labels.claimed).toBe("🔒".repeat(50));
    expect(errorOf(parseConfig({ labels: { claimed: "🔒".repeat(51) } }))).toContain("at most 50");
    const error = errorOf(parseConfig({ labels: { claimed: "x".repeat(51) } }));
    expect(error).toContain(file);
    expect(error).toContain("`labels.claimed`");
    expect(error).toContain("at most 50");
  });

  it("rejects empty labels, true, and templates missing their placeholder", () => {
    expect(errorOf(parseConfig({ labels: { claimed: "  " } }))).toContain("`labels.claimed`: is empty");
    const truthy = errorOf(parseConfig({ labels: { holder: true } }));
    expect(truthy).toContain("`labels.holder`: `true` is not a label name");
    expect(truthy).toContain("`false`");
    expect(errorOf(parseConfig({ labels: { holder: "claimed" } }))).toContain("`labels.holder`");
    expect(errorOf(parseConfig({ labels: { holder: "claimed" } }))).toContain("`{holder}`");
    const token = errorOf(parseConfig({ labels: { token: "lease" } }));
    expect(token).toContain("`labels.token`");
    expect(token).toContain("`{token}`");
    expect(errorOf(parseConfig({ labels: "claimed" }))).toContain("`labels`: must be a mapping");
  });

  it("rejects templates whose own text could match ordinary labels (`{holder}` would take `bug` for a holder label, `v{token}` a release's `v2`)", () => {
    for (const [kind, template] of [["holder", "{holder}"], ["holder", " {holder} "], ["holder", "by{holder}"], ["token", "v{token}"], ["token", "#{token}"], ["token", "tok{token}"]]) {
      const error = errorOf(parseConfig({ labels: { [kind!]: template } }));
      expect(error).toContain(`\`labels.${kind}\``);
      expect(error).toContain("could match ordinary labels");
    }
    // Three characters of its own, one of them a space or punctuation: accepted.
    for (const template of ["wip: {holder}", "{holder} wip", "by-{holder}"]) {
      expect(configOf(parseConfig({ labels: { holder: template } })).labels.holder).toBe(template);
    }
    expect(configOf(parseConfig({ labels: { token: "tok-{token}" } })).labels.token).toBe("tok-{token}");
  });

  it("lists several problems one per line", () => {
    const error = errorOf(parseConfig({ default_ttl: "soon", bots: "maybe", labels: { token: 3 } }));
    const lines = error.split("\n");
    expect(lines[0]).toBe(`${file} has 3 problems:`);
    expect(lines.slice(1).every((line) => line.startsWith("- `"))).toBe(true);
    expect(error).toContain("- `default_ttl`:");
    expect(error).toContain("- `bots`:");
    expect(error).toContain("- `labels.token`:");
  });

  it("summarises a long list of problems", () => {
    const raw = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`key${i}`, i]));
    const error = errorOf(parseConfig(raw));
    expect(error).toContain("has 30 problems");
    expect(error).toContain("- and 20 more.");
    expect(error.split("\n")).toHaveLength(12);
  });

  it("rejects a file that is not a mapping", () => {
    for (const [raw, kind] of [
      [[1, 2], "a list"],
      ["default_ttl 7d", "a string"],
      [7, "a number"],
      [true, "`true`"],
    ] as const) {
      const error = errorOf(parseConfig(raw));
      expect(error).toBe(`${file}: must be a mapping of keys to values, such as \`default_ttl: 7d\`; it is ${kind}.`);
    }
  });

  it("does not echo huge values or keys", () => {
    const huge = "x".repeat(100_000);
    for (const raw of [{ default_ttl: huge }, { claimers: huge }, { [huge]: 1 }, { labels: { claimed: huge } }]) {
      const error = errorOf(parseConfig(raw));
      // Short: the huge text is cut (the unknown key's answer lists the known keys, which grow with the config).
      expect(error.length).toBeLessThan(600);
      expect(error).toContain("…");
    }
  });

  it("keeps echoed values on one line, and keys out of code spans", () => {
    const error = errorOf(parseConfig({ "a`b\nc": 1, default_ttl: "x\n`y`\u202e" }));
    expect(error.split("\n")).toHaveLength(3);
    expect(error).toContain("`a?b?c`: unknown key");
    expect(error).toContain("``x?`y`?`` is not a duration");
  });

  it("shows a value as inline code, so that a link, an image, HTML or a mention in it does not render in the reply", () => {
    const cases: Array<[string, string]> = [
      ["[docs](https://evil.example)", "`[docs](https://evil.example)`"],
      ["![x](https://evil.example/i.png)", "`![x](https://evil.example/i.png)`"],
      ["<img src=x>", "`<img src=x>`"],
      ["@alice", "`@alice`"],
    ];
    for (const [value, shown] of cases) {
      const error = errorOf(parseConfig({ claimers: value }));
      expect(error).toContain(`\`claimers\`: must be one of \`anyone\`, \`collaborators\`, \`members\`, not ${shown}.`);
      // As the reply renders it: no mention outside the code span, no HTML.
      expect(mentionsIn(safeText(error))).toEqual([]);
      expect(safeText(error)).toContain(shown);
    }
  });

  it("fences a value with more backticks than any run inside it, so that it cannot close its code span early", () => {
    const error = errorOf(parseConfig({ claimers: "a``[x](https://evil.example)`b" }));
    expect(error).toContain("not ```a``[x](https://evil.example)`b```.");
    const edge = errorOf(parseConfig({ claimers: "`@alice`" }));
    expect(edge).toContain("not `` `@alice` ``.");
    expect(mentionsIn(safeText(edge))).toEqual([]);
    expect(errorOf(parseConfig({ claimers: " " }))).toContain("not an empty string.");
  });
});

describe("parseConfig on any input", () => {
  it("never throws and returns a config or a non-empty error", () => {
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true, withSparseArray: true }), (raw) => {
        const result = parseConfig(raw);
        if (result.ok) expect(result.config).toBeTypeOf("object");
        else expect(result.error.startsWith("`.github/issue-leases.yml`")).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("never throws on config-shaped junk", () => {
    const value = fc.oneof(
      fc.anything(),
      fc.string(),
      fc.constantFrom("none", "7d", "1m", "30d", "0s", "-1d", "claimed", "{holder}", "{token}", true, false, null, 0, -1, 1.5),
    );
    const keys = fc.constantFrom(
      "default_ttl",
      "min_ttl",
      "max_ttl",
      "reminder_before",
      "max_leases_per_holder",
      "claimers",
      "bots",
      "assign",
      "labels",
      "require_lease_for_pull_requests",
      "limits_by_label",
      "max_leases_per_holder_in_org",
      "author_first",
      "__proto__",
      "constructor",
    );
    const labels = fc.dictionary(fc.constantFrom("claimed", "holder", "token", "x"), value);
    const raw = fc.dictionary(keys, fc.oneof(value, labels));
    fc.assert(
      fc.property(raw, (r) => {
        const result = parseConfig(r);
        if (!result.ok) expect(result.error.length).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });

  it("never throws on deeply nested input or exotic objects", () => {
    let deep: unknown = "7d";
    for (let i = 0; i < 10_000; i++) deep = { labels: deep, x: [deep] };
    expect(parseConfig(deep).ok).toBe(false);
    const hostile = new Proxy({}, { ownKeys: () => { throw new Error("boom"); }, get: () => { throw new Error("boom"); } });
    expect(errorOf(parseConfig(hostile))).toContain(CONFIG_FILE);
  });
});

describe("parseConfig: exempt_labels", () => {
  it("takes a list of label names, and refuses anything else naming the key", () => {
    expect(configOf(parseConfig({ exempt_labels: ["pinned"] })).exemptLabels).toEqual(["pinned"]);
    expect(errorOf(parseConfig({ exempt_labels: "pinned" }))).toContain('`exempt_labels`: must be a list of label names such as ["pinned"]');
    expect(errorOf(parseConfig({ exempt_labels: [3] }))).toContain("`exempt_labels.0`: must be a list of label names");
    expect(errorOf(parseConfig({ exempt_labels: [" "] }))).toContain("`exempt_labels.0`: is empty; write label names");
    expect(errorOf(parseConfig({ exempt_labels: ["x".repeat(51)] }))).toContain("at most 50 characters");
    expect(errorOf(parseConfig({ exempt_labels: Array.from({ length: 21 }, (_, i) => `l${i}`) }))).toContain("at most 20 are allowed");
    expect(errorOf(parseConfig({ exempt_labels: ["pinned", "Claimed"] }))).toContain("`exempt_labels.1`: `Claimed` is a label the app puts on leases itself");
  });

  it("takes true or false for renew_on_activity and count_in_review, and false for the in-review label", () => {
    expect(errorOf(parseConfig({ renew_on_activity: "yes" }))).toContain("`renew_on_activity`: must be `true` or `false`");
    expect(errorOf(parseConfig({ count_in_review: 1 }))).toContain("`count_in_review`: must be `true` or `false`");
    expect(configOf(parseConfig({ labels: { in_review: false } })).labels.inReview).toBe(false);
  });
});
