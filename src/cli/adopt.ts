/**
 * `issue-leases adopt owner/name`: the issues already assigned in a
 * repository become leases (adopt-issues.ts), for a project that comes from
 * another claim bot or from assigning people by hand. Reads the repository's
 * config and its assigned issues from GitHub as the app does (github-app.ts),
 * then writes to the ledger; GitHub itself is changed by the running app,
 * through the outbox.
 */
import { DURATION_FORMS, parseDuration } from "../commands/parse-duration.js";
import { sourceOf } from "../config/repo-config.js";
import { installationGitHub } from "../github/installation-port.js";
import { parseConfigSources, readConfigSources } from "../config/sources.js";
import { targetPolicy } from "../settings/work-settings.js";
import { ttlRefusal } from "../leasing/lease-rules.js";
import type { Ttl } from "../ledger/leases/lease-types.js";
import { adoptIssues, type AdoptReport, type AssignedIssue } from "./adopt-issues.js";
import { CliError, EXIT, usageError } from "./cli-error.js";
import type { CliIo } from "./cli-io.js";
import { DATABASE_HELP } from "./database-help.js";
import { formatTable, isoTime } from "./format-table.js";
import { type AppRepo, appForRepo } from "./github-app.js";
import { openDatabase } from "./open-database.js";
import { parseRepoName } from "./parse-issue-ref.js";

export const ADOPT_HELP = `Usage: issue-leases adopt owner/name [--ttl DURATION] [--reply] [--json]

Takes over the issues already assigned in a repository, for a project that
comes from another claim bot or assigned people by hand: each open issue
with an assignee and no live lease gets a lease held by that assignee, from
now, for the repository's default_ttl (its .github/issue-leases.yml, read from
GitHub as the app reads it) or --ttl. Limits are not checked: the work is
theirs already. Each is recorded in the issue's history as an acquire by
"operator", delivery adopt:<repository id>#<issue>:<token>.

Nothing is posted on the issues unless --reply: the running app adds each
lease's labels through its outbox, and the assignee is unassigned when the
lease ends, as for any claim. Run again, it adopts nothing twice: an issue
with a live lease is left as it is. Pull requests are skipped; an issue with
several assignees goes to the first, and the others stay assigned.

Asks GitHub as the app: APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH), and
GHE_HOST for GitHub Enterprise Server, from the environment or ./.env.

  --ttl DURATION  instead of default_ttl (30m, 2h, 3d, 2w), within the
                  repository's min_ttl and max_ttl; none: no expiry
  --reply         post a reply on each issue adopted, mentioning its holder
  --json          {"repo", "adopted": […], "skipped": […]} instead of tables

Exit 3 if the app is not installed on the repository.

Database:
${DATABASE_HELP}`;

type Values = Record<string, string | boolean | undefined>;

/** The repository named, and the --ttl given (undefined: the config's), checked before anything is asked. */
export function adoptArgs(positionals: string[], values: Values): { repo: string; ttl: Ttl | undefined } {
  const [text, ...extra] = positionals;
  if (text === undefined) throw usageError("adopt needs a repository as owner/name; see `issue-leases adopt --help`");
  if (extra.length > 0) throw usageError(`unexpected argument ${extra[0]}; see \`issue-leases adopt --help\``);
  const repo = parseRepoName(text);
  if (repo === null) throw usageError(`not a repository: ${JSON.stringify(text)}; write it as owner/name`);
  if (typeof values.ttl !== "string") return { repo, ttl: undefined };
  if (values.ttl.trim().toLowerCase() === "none") return { repo, ttl: null };
  const ttl = values.ttl.length <= 40 ? parseDuration(values.ttl.trim()) : null;
  if (ttl === null) throw usageError(`--ttl ${JSON.stringify(values.ttl)} is not a duration; use ${DURATION_FORMS}, or none`);
  return { repo, ttl };
}

export async function runAdopt(url: string, positionals: string[], values: Values, io: CliIo): Promise<number> {
  const args = adoptArgs(positionals, values);
  const gh = await appForRepo(io.env, args.repo);
  const targets = targetPolicy(io.env);
  const loaded = parseConfigSources(await readConfigSources(sourceOf(gh.octokit, gh.owner, gh.name), targets), targets);
  if (!loaded.ok) throw new CliError(`${gh.info.repo}'s config cannot be used, so nothing was adopted: ${loaded.error.replace(/\s+/g, " ")}`, EXIT.failure);
  const config = loaded.config;
  const refusal = typeof args.ttl === "number" ? ttlRefusal(args.ttl, config, "adopt") : null;
  if (refusal !== null) throw usageError(`--ttl is outside ${gh.info.repo}'s range: ${refusal.replace(/`/g, "")}`);
  const ttl = args.ttl === undefined ? config.defaultTtl : args.ttl;
  const issues = await assignedIssues(gh);

  const ledger = await openDatabase(url, io.env);
  let report: AdoptReport;
  const now = io.clock();
  try {
    report = await adoptIssues(ledger, gh.info, issues, { ttl, config, reply: values.reply === true }, now);
  } finally {
    await ledger.close();
  }
  if (values.json) io.out(JSON.stringify(reportJson(gh.info.repo, report), null, 2));
  else io.out(summary(gh.info.repo, report, values.reply === true));
  return EXIT.ok;
}

/** The repository's open issues with an assignee, pull requests included (GitHub lists them as issues), every page. */
async function assignedIssues(gh: AppRepo): Promise<AssignedIssue[]> {
  const listed = await installationGitHub(gh.octokit).assignedOpenIssues({ owner: gh.owner, repo: gh.name });
  return listed.map((i) => ({
    number: i.number,
    title: i.title,
    labels: i.labels.map((l) => (typeof l === "string" ? l : (l.name ?? ""))).filter((l) => l !== ""),
    assignees: (i.assignees ?? []).map((a) => ({ id: a.id, login: a.login, type: a.type })),
    pull: i.pull_request !== undefined && i.pull_request !== null,
  }));
}

function reportJson(repo: string, report: AdoptReport) {
  return {
    repo,
    adopted: report.adopted.map((a) => ({
      issue: a.issue,
      holder: { login: a.lease.holder.login, id: a.lease.holder.id },
      token: a.lease.token,
      acquired_at: isoTime(a.lease.acquiredAt),
      expires_at: isoTime(a.lease.expiresAt),
      also_assigned: a.others,
    })),
    skipped: report.skipped,
  };
}

function summary(repo: string, report: AdoptReport, reply: boolean): string {
  const { adopted, skipped } = report;
  const lines: string[] = [];
  const issues = (n: number) => `${n} issue${n === 1 ? "" : "s"}`;
  lines.push(`adopted ${issues(adopted.length)} of ${repo}${adopted.length > 0 ? ":" : ""}`);
  if (adopted.length > 0) {
    const rows = adopted.map((a) => [`#${a.issue}`, a.lease.holder.login, String(a.lease.token), isoTime(a.lease.expiresAt) ?? "never", a.others.join(", ") || "-"]);
    lines.push(formatTable(["ISSUE", "HOLDER", "TOKEN", "EXPIRES", "ALSO ASSIGNED (holds nothing)"], rows));
  }
  if (skipped.length > 0) {
    lines.push(`skipped ${issues(skipped.length)}:`);
    lines.push(formatTable(["ISSUE", "WHY"], skipped.map((s) => [`#${s.issue}`, s.reason])));
  }
  if (adopted.length > 0) {
    lines.push(
      reply
        ? "The running app labels each issue and posts a reply on it, through its outbox."
        : "The running app labels each issue through its outbox; nothing is posted on them (--reply would post one reply each).",
    );
  }
  return lines.join("\n");
}
