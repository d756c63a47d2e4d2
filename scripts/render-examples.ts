/**
 * Renders, from the app's own renderer and check, what a user sees: a reply
 * of each kind, the labels of a lease and the lease check's title and
 * summary. `npm run docs:examples` writes them to docs/examples.md and the
 * README's examples block (a claim, as a person sees it); test/docs/examples.test.ts renders them again
 * and fails when the checked-in text differs, so the manual stays true.
 *
 * Times and values are fixed (no clock, no random ref), so the text is the
 * same on every run.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { evaluateLeaseCheck, leaseTokens, tooManyReferences, type CheckResult } from "../src/checks/lease-check.js";
import { parseCommand, isParseError } from "../src/commands/parse-command.js";
import { DEFAULT_CONFIG, parseConfig } from "../src/config/config.js";
import { helpView } from "../src/leasing/help.js";
import { RELEASE_OTHERS_FORBIDDEN } from "../src/leasing/handle-command.js";
import { ttlRefusal } from "../src/leasing/lease-rules.js";
import { closedReason } from "../src/leasing/handle-issue-event.js";
import type { Lease } from "../src/ledger/leases/lease-types.js";
import { desiredLabels } from "../src/github/labels.js";
import { renderReply } from "../src/github/render.js";
import { leaseView, type Reply } from "../src/commands/reply.js";

export const README_START = "<!-- examples:start -->";
export const README_END = "<!-- examples:end -->";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The moment of every example: 2026-12-01 12:00 UTC. */
const AT = Date.UTC(2026, 11, 1, 12, 0, 0);
const REF = "3f9c0e7d2a41b6c8e5d09a17";

const alice = { id: 1001, login: "alice" };
const bob = { id: 1002, login: "bob" };

/** alice's lease on issue 12: token 3, taken at AT for the default 7 days. */
const lease: Lease = {
  repoId: 1,
  repo: "octo-org/widgets",
  issue: 12,
  holder: alice,
  token: 3,
  acquiredAt: AT,
  expiresAt: AT + 7 * DAY,
  heldBy: { kind: "time" },
};
const view = leaseView(lease)!;

/** A repository whose leases last at most 14 days. */
const SHORT_CONFIG = (() => {
  const parsed = parseConfig({ max_ttl: "14d" });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.config;
})();

/** The config of the `/help` example. */
const HELP_CONFIG = (() => {
  const parsed = parseConfig({
    commands: { take: "claim", "assign-me": "claim", abandon: "release" },
    mentions: true,
    max_leases_per_holder: 2,
    limits_by_label: { "good first issue": 1 },
  });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.config;
})();

interface ReplyExample {
  title: string;
  /** What happened, in the manual's words. */
  context: string;
  reply: Reply;
}

function parseMessage(line: string): string {
  const parsed = parseCommand(line);
  if (!isParseError(parsed)) throw new Error(`${line} is expected not to parse`);
  return parsed.message;
}

const base = { op: "claim", issue: 12, at: AT, ignored: 0 } as const;

function replyExamples(): Record<string, ReplyExample> {
  return {
    acquired: {
      title: "`acquired`: a claim",
      context: "alice comments `/claim` on issue 12, which is free; its last tenure had token 2.",
      reply: { ...base, outcome: "acquired", command: "/claim", actor: "alice", lease: view, newTenure: true, comment: 1796126400 },
    },
    held: {
      title: "`held`: someone else holds it",
      context: "bob comments `/claim` an hour later.",
      reply: { ...base, outcome: "held", at: AT + HOUR, command: "/claim", actor: "bob", lease: view, comment: 1796126401 },
    },
    queued: {
      title: "`queued`: waiting in line (`queue: true`)",
      context: "In a repository with `queue: true`, dave comments `/claim` an hour into alice's lease, after bob: he is second in line.",
      reply: { ...base, outcome: "queued", at: AT + HOUR, command: "/claim", actor: "dave", lease: view, position: 2, queuedUntil: AT + 25 * HOUR, comment: 1796126410 },
    },
    handoff: {
      title: "`acquired` by a handoff: the first in line gets it",
      context: "alice comments `/release` while bob waits first in line: in the same transaction bob gets the lease, token 4 (his `/claim 2d`), and is mentioned.",
      reply: {
        ...base,
        op: "handoff",
        outcome: "acquired",
        at: AT + DAY,
        command: "/release",
        actor: "alice",
        lease: { ...view, holder: "bob", token: 4, acquiredAt: AT + DAY, expiresAt: AT + 3 * DAY },
        newTenure: true,
        mentionHolder: true,
        previous: { lease: view, ended: "released" },
        comment: 1796126411,
      },
    },
    renewed: {
      title: "`renewed`",
      context: "Two days later alice comments `/renew 3d`: the lease now ends 3 days from then; the token stays.",
      reply: {
        ...base,
        op: "renew",
        outcome: "renewed",
        at: AT + 2 * DAY,
        command: "/renew 3d",
        actor: "alice",
        lease: { ...view, expiresAt: AT + 5 * DAY },
        comment: 1796126402,
      },
    },
    not_holder: {
      title: "`not_holder`: only the holder can renew",
      context: "bob comments `/renew` while alice holds the issue.",
      reply: { ...base, op: "renew", outcome: "not_holder", at: AT + HOUR, command: "/renew", actor: "bob", lease: view, comment: 1796126403 },
    },
    released: {
      title: "`released` by the holder",
      context: "alice comments `/release`.",
      reply: { ...base, op: "release", outcome: "released", at: AT + DAY, command: "/release", actor: "alice", lease: view, comment: 1796126404 },
    },
    released_by_maintainer: {
      title: "`released` by a maintainer",
      context: "carol, who has write permission, comments `/release @alice`; alice is mentioned.",
      reply: {
        ...base,
        op: "release",
        outcome: "released",
        at: AT + DAY,
        command: "/release @alice",
        actor: "carol",
        lease: view,
        mentionHolder: true,
        comment: 1796126405,
      },
    },
    released_by_closing: {
      title: "`released` by closing the issue",
      context: "The issue is closed while alice holds it (a merged pull request that fixes it, say).",
      reply: { ...base, op: "release", outcome: "released", at: AT + DAY, command: null, actor: null, lease: view, reason: closedReason(false) },
    },
    expired: {
      title: "`expired`",
      context: "Nobody renewed; the sweeper ends the lease a minute after it ran out and mentions the holder.",
      reply: { ...base, op: "expire", outcome: "expired", at: AT + 7 * DAY + 60_000, command: null, actor: null, lease: view, mentionHolder: true },
    },
    reminded: {
      title: "`reminded`",
      context: "A day before the lease ends (`reminder_before: 1d`), once per term.",
      reply: { ...base, op: "remind", outcome: "reminded", at: AT + 6 * DAY, command: null, actor: null, lease: view, mentionHolder: true },
    },
    status_in_review: {
      title: "`status` while a pull request holds the lease",
      context:
        "alice opened pull request #34, which says `Fixes #12`: while it is open her lease does not expire (nor is she reminded), " +
        "and the issue also carries `claimed: in review`. bob comments `/lease`.",
      reply: {
        ...base,
        op: "status",
        outcome: "status",
        at: AT + 9 * DAY,
        command: "/lease",
        actor: "bob",
        lease: { ...view, expiresAt: null, heldBy: { kind: "pull", pulls: [34] } },
        comment: 1796126409,
      },
    },
    invalid: {
      title: "`invalid`: a command not understood",
      context: "bob comments `/claim 7` (a duration needs a unit). Nothing changes.",
      reply: {
        ...base,
        outcome: "invalid",
        at: AT + HOUR,
        command: "/claim 7",
        actor: "bob",
        lease: view,
        reason: parseMessage("/claim 7"),
        comment: 1796126406,
      },
    },
    invalidTtl: {
      title: "`invalid`: a duration longer than the repository allows",
      context: "In a repository whose config says `max_ttl: 14d`, bob comments `/claim 30d` on a free issue. Nothing changes.",
      reply: {
        ...base,
        outcome: "invalid",
        at: AT + HOUR,
        command: "/claim 30d",
        actor: "bob",
        lease: null,
        reason: ttlRefusal(30 * DAY, SHORT_CONFIG, "claim")!,
        rule: "ttl",
        comment: 1796126407,
      },
    },
    forbidden: {
      title: "`forbidden`: not allowed",
      context: "bob, without write permission, comments `/release @alice`. Nothing changes.",
      reply: {
        ...base,
        op: "release",
        outcome: "forbidden",
        at: AT + HOUR,
        command: "/release @alice",
        actor: "bob",
        lease: view,
        reason: RELEASE_OTHERS_FORBIDDEN,
        comment: 1796126407,
      },
    },
    status: {
      title: "`status`: `/lease` with the line and the last tenures",
      context: "bob comments `/lease` a day into alice's tenure, while he and dave wait in line (`queue: true`).",
      reply: {
        ...base,
        op: "status",
        outcome: "status",
        at: AT + DAY,
        command: "/lease",
        actor: "bob",
        lease: view,
        comment: 1796126408,
        queue: [
          { holder: "bob", position: 1 },
          { holder: "dave", position: 2 },
        ],
        tenures: [
          { holder: "bob", token: 1, from: AT - 20 * DAY, to: AT - 18 * DAY, ended: "released" },
          { holder: "dave", token: 2, from: AT - 14 * DAY, to: AT - 7 * DAY, ended: "expired" },
          { holder: "alice", token: 3, from: AT, to: AT + 7 * DAY, ended: "live" },
        ],
      },
    },
    help: {
      title: "`help`: `/help` in a repository with aliases and limits",
      context:
        "bob comments `/help` in a repository whose config has `commands: { take: claim, assign-me: claim, abandon: release }`, " +
        "`mentions: true`, `max_leases_per_holder: 2` and `limits_by_label: { \"good first issue\": 1 }`.",
      reply: {
        ...base,
        op: "help",
        outcome: "help",
        command: "/help",
        actor: "bob",
        lease: null,
        comment: 1796126409,
        help: helpView(HELP_CONFIG, "issue-leases"),
      },
    },
  };
}

/** A reply as a person sees it on GitHub: a quote of the rendered Markdown, without the marker's last line. */
function quoteReply(body: string): { quoted: string; marker: string } {
  const lines = body.split("\n");
  const marker = lines.pop()!;
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return { quoted: lines.map((l) => (l === "" ? ">" : `> ${l}`)).join("\n"), marker };
}

/** A reply as a user sees it (a quote of the rendered Markdown), then its marker, which GitHub does not show. */
function showReply(body: string): string {
  const { quoted, marker } = quoteReply(body);
  return `${quoted}\n\nIts last line, hidden on GitHub, is the marker for bots:\n\n\`\`\`\n${marker}\n\`\`\``;
}

function replySection(e: ReplyExample, level: string): string {
  return `${level} ${e.title}\n\n${e.context}\n\n${showReply(renderReply(e.reply, { ref: REF }))}`;
}

function labelsSection(): string {
  const rows = (l: Lease) =>
    desiredLabels(DEFAULT_CONFIG.labels, l)
      .map((x) => `| \`${x.kind}\` | \`${x.name}\` |`)
      .join("\n");
  const long: Lease = { ...lease, holder: { id: 1003, login: "a-contributor-with-a-very-long-login-name" } };
  return [
    "## Labels",
    "",
    "With the default templates (`claimed`, `claimed-by: {holder}`, `lease #{token}`), alice's lease on issue 12 shows:",
    "",
    "| Kind | Label |",
    "| --- | --- |",
    rows(lease),
    "",
    "A label longer than GitHub's 50 characters keeps its start and ends in `~` and 8 hex digits of a hash of the full name:",
    "",
    "| Kind | Label |",
    "| --- | --- |",
    rows(long),
    "",
    "A free issue shows none of them.",
  ].join("\n");
}

interface CheckExample {
  title: string;
  context: string;
  result: CheckResult;
}

function checkExamples(): CheckExample[] {
  const one = (l: Lease | null, latestToken: number | null) => [{ issue: 12, lease: l, latestToken }];
  return [
    {
      title: "`success`",
      context: "alice's pull request says `Fixes #12` and `Lease-Token: 3`; she holds issue 12 with token 3.",
      result: evaluateLeaseCheck({ author: alice, leases: one(lease, 3), tokens: leaseTokens("Lease-Token: 3"), requireLease: false }),
    },
    {
      title: "`failure`: held by someone else",
      context: "bob's pull request says `Fixes #12` while alice holds it.",
      result: evaluateLeaseCheck({ author: bob, leases: one(lease, 3), tokens: leaseTokens(""), requireLease: false }),
    },
    {
      title: "`failure`: a stale `Lease-Token`",
      context: "alice's pull request still says `Lease-Token: 2`, from an earlier tenure; the live one is token 3.",
      result: evaluateLeaseCheck({ author: alice, leases: one(lease, 3), tokens: leaseTokens("Lease-Token: 2"), requireLease: false }),
    },
    {
      title: "`failure`: a `Lease-Token` for a free issue",
      context: "A bot's pull request says `Lease-Token: 3 #12` after its lease on issue 12 expired.",
      result: evaluateLeaseCheck({ author: alice, leases: one(null, 3), tokens: leaseTokens("Lease-Token: 3 #12"), requireLease: false }),
    },
    {
      title: "`failure`: more than 50 issues",
      context: "A pull request that would close more than 50 issues.",
      result: tooManyReferences(),
    },
    {
      title: "`neutral`: no lease involved",
      context: "A pull request that closes no issue (and the repository does not set `require_lease_for_pull_requests`).",
      result: evaluateLeaseCheck({ author: bob, leases: [], tokens: leaseTokens(""), requireLease: false }),
    },
  ];
}

/** What happened, then the check's conclusion, title and summary (a quote of its Markdown). */
function checkBody(e: CheckExample): string {
  const summary = e.result.summary
    .split("\n")
    .map((l) => `> ${l}`)
    .join("\n");
  return `${e.context}\n\nConclusion \`${e.result.conclusion}\`, title **${e.result.title}**, summary:\n\n${summary}`;
}

const GENERATED = "<!-- Generated by `npm run docs:examples` (scripts/render-examples.ts); do not edit by hand. -->";

/** docs/examples.md, whole. */
export function examplesDoc(): string {
  const replies = Object.values(replyExamples()).map((e) => replySection(e, "###"));
  const checks = checkExamples().map((e) => `### ${e.title}\n\n${checkBody(e)}`);
  return [
    "# What users see",
    "",
    GENERATED,
    "",
    "Each example below is rendered by the app's own code (`renderReply` in",
    "[src/github/render.ts](../src/github/render.ts), `desiredLabels` in",
    "[src/github/labels.ts](../src/github/labels.ts), `evaluateLeaseCheck` in",
    "[src/checks/lease-check.ts](../src/checks/lease-check.ts)) with fixed times",
    "and values: every example happens around 2026-12-01 12:00 UTC, on issue 12",
    "of `octo-org/widgets`, whose lease alice takes with token 3 for the default",
    "7 days. `npm test` fails when this file no longer matches what the code renders.",
    "",
    "## Replies",
    "",
    "One reply per command, quoting it. The `comment` in the marker is the id of",
    "the comment the reply answers; `ref` is random in real replies.",
    "",
    replies.join("\n\n"),
    "",
    labelsSection(),
    "",
    "## The lease check on pull requests",
    "",
    "A check run named `issue-leases` on the pull request's head commit.",
    "",
    checks.join("\n\n"),
    "",
  ].join("\n");
}

/**
 * The README's examples block, between README_START and README_END (markers
 * excluded): one claim as a person sees it on GitHub, the reply and the labels.
 */
export function readmeExamples(): string {
  const claim = replyExamples().acquired!;
  const labels = desiredLabels(DEFAULT_CONFIG.labels, lease).map((l) => `\`${l.name}\``);
  return [
    GENERATED,
    "",
    `On GitHub, ${claim.context} The app answers:`,
    "",
    quoteReply(renderReply(claim.reply, { ref: REF })).quoted,
    "",
    `and the issue now carries the labels ${labels.slice(0, -1).join(", ")} and ${labels.at(-1)!}, with ${lease.holder.login} assigned ` +
      "(`assign: true`, the default). When the lease ends, by `/release`, by expiry or by closing the issue, the labels go and the app unassigns " +
      `${lease.holder.login}. Every other reply, the labels and the pull request check: [docs/examples.md](docs/examples.md).`,
  ].join("\n");
}

/** The README with its examples block replaced; throws when the markers are missing. */
export function spliceReadme(readme: string, block: string): string {
  const start = readme.indexOf(README_START);
  const end = readme.indexOf(README_END);
  if (start < 0 || end < start) throw new Error(`README.md lacks the ${README_START} … ${README_END} markers`);
  return `${readme.slice(0, start + README_START.length)}\n\n${block}\n\n${readme.slice(end)}`;
}

/** The text between the README's markers, as spliceReadme writes it. */
export function readmeBlock(readme: string): string | null {
  const start = readme.indexOf(README_START);
  const end = readme.indexOf(README_END);
  if (start < 0 || end < start) return null;
  return readme.slice(start + README_START.length, end).trim();
}

function main(root: string): void {
  writeFileSync(join(root, "docs/examples.md"), examplesDoc());
  const readmePath = join(root, "README.md");
  writeFileSync(readmePath, spliceReadme(readFileSync(readmePath, "utf8"), readmeExamples()));
  process.stdout.write("wrote docs/examples.md and README.md's examples block\n");
}

// Run as `node dist/scripts/render-examples.js` from the repository root (npm run docs:examples).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.cwd());
