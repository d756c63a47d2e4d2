/**
 * zulipbot (zulip's bot, `@zulipbot claim`): its configuration is a
 * TypeScript module (`config/config.ts`, over `config/default.ts`) whose
 * exports `issues`, `pulls` and `activity` this reads as JSON, the same
 * objects written as `{"issues": …, "activity": …}` (a `Map` as an object).
 * A module itself is not run. The fields are those of zulipbot's
 * `config/default.ts` and `config/config-example.ts`:
 *
 * - `issues.commands.assign.claim` and `.abandon`: the words read after
 *   `@zulipbot` (aliases here, with `mentions`);
 * - `.limit`: assignees one issue may have (issue-leases: one holder);
 * - `activity.check.reminder` and `.limit`: days without an update before a
 *   reminder, then days more before the assignee is removed;
 * - `activity.issues.inProgress`: the label of an issue with an assignee.
 */
import { Imported, isMapping, NotThisBot, show } from "./imported.js";

const OTHER_TOPICS: Record<string, string> = {
  "issues.commands.label": "labelling by comment (`@zulipbot add`); issue-leases only claims.",
  "issues.area": "area labels and who they notify; issue-leases only claims.",
  pulls: "pull request statuses (merge conflicts, sizes, references); issue-leases' check on pull requests is about leases only.",
  eventsDelay: "not needed: issue-leases answers each event in one transaction.",
  auth: "not needed: issue-leases is a GitHub App with credentials of its own.",
};

/** zulipbot's exports (as JSON) as issue-leases config; NotThisBot when none of its topics is there. */
export function importZulipbot(config: unknown): Imported {
  if (!isMapping(config) || !["issues", "activity", "pulls"].some((k) => Object.hasOwn(config, k))) {
    throw new NotThisBot("zulipbot's config has `issues`, `activity` or `pulls` at its top");
  }
  const out = new Imported("zulipbot", "its `issues` and `activity` settings");
  const issues = isMapping(config.issues) ? config.issues : {};
  const commands = isMapping(issues.commands) ? issues.commands : {};
  const assign = isMapping(commands.assign) ? commands.assign : null;
  const activity = isMapping(config.activity) ? config.activity : {};

  mapActivity(out, activity);
  if (assign === null) {
    out.notes.push("This config has no `issues.commands.assign`, so zulipbot's claim commands are off: no command is kept.");
  } else {
    mapCommands(out, assign);
    mapNewContributors(out, assign);
  }
  for (const [key, why] of Object.entries(OTHER_TOPICS)) {
    const [top, ...rest] = key.split(".");
    let value: unknown = config[top!];
    for (const part of rest) value = isMapping(value) ? value[part] : undefined;
    if (value !== undefined) out.none(key, why);
  }
  return out;
}

function mapCommands(out: Imported, assign: Record<string, unknown>): void {
  const words = (key: string): string[] => (Array.isArray(assign[key]) ? (assign[key] as unknown[]).filter((w): w is string => typeof w === "string") : []);
  const claim = words("claim");
  const abandon = words("abandon");
  if (claim.length + abandon.length > 0) {
    out.set(["mentions"], true, "zulipbot reads `@zulipbot <command>`: with this, issue-leases reads `@<its app slug> <command>` (and `/claim` always)");
  }
  for (const word of claim) out.alias(word, "claim", `issues.commands.assign.claim (${show(word)})`, `issues.commands.assign.claim: ${show(word)}`);
  for (const word of abandon) out.alias(word, "release", `issues.commands.assign.abandon (${show(word)})`, `issues.commands.assign.abandon: ${show(word)}`);

  const limit = assign.limit;
  if (typeof limit === "number" && limit > 1) {
    out.none(`issues.commands.assign.limit (${limit})`, "an issue has one holder in issue-leases; others wait for the lease to end.");
  }
  const warn = assign.warn;
  if (isMapping(warn) && Array.isArray(warn.labels) && warn.labels.length > 0) {
    out.none(`issues.commands.assign.warn (labels ${show(warn.labels)})`, "issue-leases neither warns about nor refuses claims by an issue's labels.");
  }
}

function mapNewContributors(out: Imported, assign: Record<string, unknown>): void {
  const nc = isMapping(assign.newContributors) ? assign.newContributors : {};
  if (typeof nc.restricted === "number" && Number.isFinite(nc.restricted)) {
    out.none(
      `issues.commands.assign.newContributors.restricted (${nc.restricted})`,
      "it limits only people with no commit in the repository; issue-leases' `max_leases_per_holder` limits everyone, so it is not set. " +
        `Set \`max_leases_per_holder: ${nc.restricted}\` if a limit for everyone suits.`,
    );
  }
  if (typeof nc.permission === "string") {
    out.none(
      `issues.commands.assign.newContributors.permission (${show(nc.permission)})`,
      "zulipbot invites new contributors as collaborators so that GitHub lets it assign them; issue-leases invites nobody: the lease stands, " +
        "and its reply says when GitHub would not assign the holder.",
    );
  }
}

function mapActivity(out: Imported, activity: Record<string, unknown>): void {
  const check = isMapping(activity.check) ? activity.check : {};
  const days = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : null);
  const reminder = days(check.reminder) ?? 0;
  const limit = days(check.limit);
  if (limit === null || reminder + limit === 0) {
    out.set(["default_ttl"], "none", "activity.check.limit is not set, so zulipbot never removes an assignee: leases do not expire");
  } else if (reminder + limit > 365) {
    out.none(`activity.check.reminder + limit (${reminder + limit} days)`, "longer than a year, issue-leases' longest lease; set `default_ttl` by hand.");
  } else {
    const total = reminder + limit;
    const from = `activity.check.reminder: ${reminder} and limit: ${limit}: an assignee without updates for ${total} days is removed`;
    out.set(["default_ttl"], `${total}d`, from);
    if (total > 30) out.set(["max_ttl"], `${total}d`, "as long as default_ttl: a `/claim` or `/renew` may ask for up to that (default `30d`)");
    out.set(["reminder_before"], reminder > 0 && limit > 0 ? `${limit}d` : "none", `activity.check.reminder: ${reminder}: the reminder comes after ${reminder} days`);
    out.notes.push(
      "zulipbot counts days from the issue's or its pull requests' last update, anyone's; issue-leases counts from the claim, renewed by the " +
        "holder's own comments and pull request work (`renew_on_activity`, on by default) and by `/renew`.",
    );
  }
  if (Array.isArray(check.repositories) && check.repositories.length > 0) {
    out.notes.push(
      `zulipbot checks inactivity in ${show(check.repositories)}: put this file in each of them, or in the organisation's \`.github\` repository.`,
    );
  }
  if (check.interval !== undefined && check.interval !== null) {
    out.none(`activity.check.interval (${show(check.interval)})`, "not needed: issue-leases ends expired leases within a minute.");
  }
  if (typeof activity.inactive === "string") {
    out.none(`activity.inactive (${show(activity.inactive)})`, "issue-leases puts no label on an issue whose holder went quiet; the lease expires.");
  }
  const issues = isMapping(activity.issues) ? activity.issues : {};
  if (typeof issues.inProgress === "string" && issues.inProgress.trim() !== "" && [...issues.inProgress].length <= 50) {
    out.set(["labels", "claimed"], issues.inProgress.trim(), `activity.issues.inProgress: ${show(issues.inProgress)}`);
  }
  if (issues.clearClosed === false) {
    out.none("activity.issues.clearClosed (false)", "issue-leases always ends a lease when its issue closes, and unassigns the holder.");
  }
  if (isMapping(activity.pulls)) {
    out.none("activity.pulls", "review labels and updates of pull requests; issue-leases' check on pull requests is about leases only.");
  }
}
