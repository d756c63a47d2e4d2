/**
 * zulipbot (zulip's bot, `@zulipbot claim`): its configuration is a module
 * (`config/config.js` over `config/default.js`, CommonJS until 2021, ES
 * modules until 2025, TypeScript since) whose exports `issues`, `pulls` and
 * `activity` this reads, from the module itself (js-exports.ts, never run) or
 * as JSON of the same objects (`{"issues": …, "activity": …}`, a `Map` as an
 * object). The fields are those of zulipbot's `config/default.*` and
 * `config/config-example.*` over its history:
 *
 * - `issues.commands.assign.claim` and `.abandon`: the words read after
 *   `@zulipbot` (aliases here, with `mentions`); until 2018 each was
 *   `{aliases: […]}`, `claim` with a `permission`;
 * - `.limit` (`multiple` for a while in 2018): assignees one issue may have
 *   (issue-leases: one holder);
 * - `.newContributors` (`permission`, `restricted`, and until 2022 `warn`)
 *   and `.warn` (`labels`, `presence`, `force`): rules for claims by people
 *   without a commit, and by an issue's labels;
 * - `activity.check.reminder` and `.limit`: days without an update before a
 *   reminder, then days more before the assignee is removed (`inactivity`,
 *   with `label` for `inactive`, in its first days);
 * - `activity.issues.inProgress`: the label of an issue with an assignee.
 *
 * Every other key is named (key-sweep.ts): nothing of the file is dropped
 * without a word.
 */
import { Imported, isMapping, NotThisBot, show } from "./imported.js";
import { KeySweep } from "./key-sweep.js";

const ASSIGN = "issues.commands.assign";

const OTHER_TOPICS: Record<string, string> = {
  "issues.commands.label": "labelling by comment (`@zulipbot add`); issue-leases only claims.",
  "issues.area": "area labels and who they notify; issue-leases only claims.",
  pulls: "pull request statuses (merge conflicts, sizes, references); issue-leases' check on pull requests is about leases only.",
  pullRequests: "pull request statuses (`pulls` since 2018); issue-leases' check on pull requests is about leases only.",
  eventsDelay: "not needed: issue-leases answers each event in one transaction.",
  auth: "not needed: issue-leases is a GitHub App with credentials of its own.",
};

/** The exports a zulipbot config has at least one of (`inactivity` and `pullRequests`: their names until 2018). */
export const ZULIPBOT_TOPICS = ["issues", "activity", "inactivity", "pulls", "pullRequests"];

/** zulipbot's exports as issue-leases config (`source`: what was read); NotThisBot when none of its topics is there. */
export function importZulipbot(config: unknown, source = "its `issues` and `activity` settings"): Imported {
  if (!isMapping(config) || !ZULIPBOT_TOPICS.some((k) => Object.hasOwn(config, k))) {
    throw new NotThisBot("zulipbot's config has `issues`, `activity` or `pulls` at its top");
  }
  const out = new Imported("zulipbot", source);
  const keys = new KeySweep(config);

  mapActivity(out, keys, Object.hasOwn(config, "activity") || !Object.hasOwn(config, "inactivity") ? "activity" : "inactivity");
  if (!keys.has(ASSIGN)) {
    out.notes.push(`This config has no \`${ASSIGN}\`, so zulipbot's claim commands are off: no command is kept.`);
  } else if (isMapping(keys.get(ASSIGN))) {
    mapCommands(out, keys);
    mapLimit(out, keys);
    mapNewContributors(out, keys);
    mapWarn(out, keys, `${ASSIGN}.warn`, "");
  }
  for (const [key, why] of Object.entries(OTHER_TOPICS)) {
    if (!keys.has(key)) continue;
    out.none(key, why);
    keys.dealt(key);
  }
  keys.sweep(out, "zulipbot");
  return out;
}

/** The words of `claim` or `abandon`: a list, or (until 2018) `{aliases: […]}`; null when neither. */
function wordsOf(keys: KeySweep, verb: "claim" | "abandon"): { path: string; words: unknown[] } | null {
  const path = `${ASSIGN}.${verb}`;
  const value = keys.get(path);
  if (Array.isArray(value)) return { path, words: value };
  const aliases = keys.get(`${path}.aliases`);
  return Array.isArray(aliases) ? { path: `${path}.aliases`, words: aliases } : null;
}

function mapCommands(out: Imported, keys: KeySweep): void {
  const claim = wordsOf(keys, "claim");
  const abandon = wordsOf(keys, "abandon");
  const read = [claim, abandon].filter((w) => w !== null);
  if (read.some((w) => w.words.length > 0)) {
    out.set(
      ["mentions"],
      true,
      `${read.map((w) => w.path).join(" and ")}: zulipbot reads \`@zulipbot <command>\`; with this, issue-leases reads \`@<its app slug> <command>\` (and \`/claim\` always)`,
    );
  }
  for (const [w, to, own] of [[claim, "claim", "/claim"], [abandon, "release", "/release"]] as const) {
    if (w === null) continue;
    keys.dealt(w.path);
    if (w.words.length === 0) out.alreadySo(`${w.path} ([])`, `no word of zulipbot's; issue-leases reads its own \`${own}\` always.`);
    for (const word of w.words) {
      if (typeof word === "string") out.alias(word, to, `${w.path} (${show(word)})`, `${w.path}: ${show(word)}`);
      else out.none(`${w.path} (${show(word)})`, "not a word: zulipbot's commands are strings.");
    }
  }
}

/** Assignees per issue: `limit`, or (early 2018) `multiple`. */
function mapLimit(out: Imported, keys: KeySweep): void {
  const limit = keys.get(`${ASSIGN}.limit`);
  if (typeof limit === "number") {
    keys.dealt(`${ASSIGN}.limit`);
    if (limit === 1) out.alreadySo(`${ASSIGN}.limit (1)`, "one assignee per issue: an issue has one holder in issue-leases.");
    else out.none(`${ASSIGN}.limit (${limit})`, "an issue has one holder in issue-leases; others wait for the lease to end.");
  }
  const multiple = keys.get(`${ASSIGN}.multiple`);
  if (typeof multiple === "boolean") {
    keys.dealt(`${ASSIGN}.multiple`);
    if (multiple) out.none(`${ASSIGN}.multiple (true)`, "an issue has one holder in issue-leases; others wait for the lease to end.");
    else out.alreadySo(`${ASSIGN}.multiple (false)`, "one assignee per issue: an issue has one holder in issue-leases.");
  }
}

function mapNewContributors(out: Imported, keys: KeySweep): void {
  const nc = `${ASSIGN}.newContributors`;
  const restricted = keys.get(`${nc}.restricted`);
  if (restricted === Infinity) {
    keys.dealt(`${nc}.restricted`);
    out.alreadySo(`${nc}.restricted (Infinity)`, "no limit, as issue-leases has by default (`max_leases_per_holder: 0`).");
  } else if (typeof restricted === "number" && Number.isFinite(restricted)) {
    keys.dealt(`${nc}.restricted`);
    out.none(
      `${nc}.restricted (${restricted})`,
      "it limits only people with no commit in the repository; issue-leases' `max_leases_per_holder` limits everyone, so it is not set. " +
        `Set \`max_leases_per_holder: ${restricted}\` if a limit for everyone suits.`,
    );
  }
  // Until 2018 the invitation's permission was `claim.permission`.
  for (const path of [`${nc}.permission`, `${ASSIGN}.claim.permission`]) {
    const permission = keys.get(path);
    if (typeof permission === "string") {
      keys.dealt(path);
      out.none(
        `${path} (${show(permission)})`,
        "zulipbot invites new contributors as collaborators so that GitHub lets it assign them; issue-leases invites nobody: the lease stands, " +
          "and its reply says when GitHub would not assign the holder.",
      );
    } else if (permission === null && keys.has(path)) {
      keys.dealt(path);
      out.alreadySo(`${path} (null)`, "zulipbot invites nobody; issue-leases neither.");
    }
  }
  // 2018 to 2022: the label rule was for new contributors only.
  mapWarn(out, keys, `${nc}.warn`, "new contributors' ");
}

/** `warn`: a claim of an issue with (`presence`) or without the labels is warned about (`force`: `--force` claims anyway) or refused. */
function mapWarn(out: Imported, keys: KeySweep, path: string, whose: string): void {
  const warn = keys.get(path);
  if (!isMapping(warn) || !Array.isArray(warn.labels)) return;
  keys.dealt(path);
  const labels = warn.labels.filter((l): l is string => typeof l === "string");
  const shown = [`labels ${show(labels)}`, ...(["presence", "force"] as const).filter((k) => warn[k] !== undefined).map((k) => `${k}: ${show(warn[k])}`)];
  if (labels.length === 0) {
    out.alreadySo(`${path} (${shown.join(", ")})`, "no label is checked; issue-leases checks none either.");
    return;
  }
  const which = `${warn.presence === true ? "with" : "without"} the label${labels.length === 1 ? "" : "s"} ${labels.map((l) => show(l)).join(", ")}`;
  out.none(
    `${path} (${shown.join(", ")})`,
    `zulipbot answers ${whose}claims of an issue ${which} with a warning (\`--force\` claims anyway) or a refusal; ` +
      "issue-leases neither warns about nor refuses claims by an issue's labels (its `limits_by_label` caps how many such issues one person holds).",
  );
}

function mapActivity(out: Imported, keys: KeySweep, top: "activity" | "inactivity"): void {
  const check = `${top}.check`;
  const [reminderPath, limitPath] = [`${check}.reminder`, `${check}.limit`];
  const days = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : null);
  const reminderValue = keys.get(reminderPath);
  const limitValue = keys.get(limitPath);
  const reminder = days(reminderValue);
  const limit = days(limitValue);
  const unusable = (path: string, v: unknown) => v !== undefined && v !== null && days(v) === null && isValue(v);
  for (const [path, v] of [[reminderPath, reminderValue], [limitPath, limitValue]] as const) {
    if (unusable(path, v)) {
      keys.dealt(path);
      out.none(`${path} (${show(v)})`, "not a whole number of days, so leases keep issue-leases' expiry; set `default_ttl` by hand.");
    }
  }
  // A computed value (a JsExpression) is named by the sweep; the expiry is then not guessed from the other.
  const known = (v: unknown) => v === undefined || v === null || days(v) !== null;
  if (known(reminderValue) && known(limitValue)) mapExpiry(out, keys, top, reminder ?? 0, limit);

  const repositories = keys.get(`${check}.repositories`);
  if (Array.isArray(repositories)) {
    keys.dealt(`${check}.repositories`);
    if (repositories.length > 0) {
      out.none(
        `${check}.repositories (${show(repositories)})`,
        "issue-leases reads each repository's own file: put this one in each of them, or in the organisation's `.github` repository.",
      );
    } else {
      out.none(`${check}.repositories ([])`, "zulipbot checks inactivity in no repository, so its reminder and limit apply nowhere; leases here expire as imported.");
    }
  }
  const interval = keys.get(`${check}.interval`);
  if (interval !== undefined && interval !== null && isValue(interval)) {
    keys.dealt(`${check}.interval`);
    out.none(`${check}.interval (${show(interval)})`, "not needed: issue-leases ends expired leases within a minute.");
  }
  for (const path of [`${top}.inactive`, `${top}.label`]) {
    const label = keys.get(path);
    if (typeof label !== "string") continue;
    keys.dealt(path);
    out.none(`${path} (${show(label)})`, "issue-leases puts no label on an issue whose holder went quiet; the lease expires.");
  }
  const inProgress = keys.get(`${top}.issues.inProgress`);
  if (typeof inProgress === "string") {
    keys.dealt(`${top}.issues.inProgress`);
    if (inProgress.trim() !== "" && [...inProgress].length <= 50) out.set(["labels", "claimed"], inProgress.trim(), `${top}.issues.inProgress: ${show(inProgress)}`);
    else out.none(`${top}.issues.inProgress (${show(inProgress)})`, "not a label name GitHub takes (empty, or over 50 characters); `labels.claimed` keeps its default.");
  }
  const clearClosed = keys.get(`${top}.issues.clearClosed`);
  if (typeof clearClosed === "boolean") {
    keys.dealt(`${top}.issues.clearClosed`);
    if (clearClosed) out.alreadySo(`${top}.issues.clearClosed (true)`, "issue-leases ends a lease when its issue closes, and unassigns the holder.");
    else out.none(`${top}.issues.clearClosed (false)`, "issue-leases always ends a lease when its issue closes, and unassigns the holder.");
  }
  for (const path of [`${top}.pulls`, `${top}.pullRequests`]) {
    if (!keys.has(path)) continue;
    keys.dealt(path);
    out.none(path, "review labels and updates of pull requests; issue-leases' check on pull requests is about leases only.");
  }
}

/** `reminder` + `limit` days without updates as `default_ttl`, `limit` as `reminder_before`; no limit: leases that do not expire. */
function mapExpiry(out: Imported, keys: KeySweep, top: string, reminder: number, limit: number | null): void {
  const [reminderPath, limitPath] = [`${top}.check.reminder`, `${top}.check.limit`];
  const hasReminder = keys.has(reminderPath);
  if (keys.has(limitPath) || hasReminder) keys.dealt(limitPath, reminderPath);
  if (limit === null || reminder + limit === 0) {
    out.set(["default_ttl"], "none", `${limitPath} is ${limit === null ? "not set" : "0"}, so zulipbot never removes an assignee: leases do not expire`);
    if (reminder > 0) out.none(`${reminderPath} (${reminder})`, "issue-leases reminds a holder before the lease expires; leases that do not expire have no reminder.");
    return;
  }
  const total = reminder + limit;
  if (total > 365) {
    out.none(`${reminderPath} + limit (${total} days)`, "longer than a year, issue-leases' longest lease; set `default_ttl` by hand.");
    return;
  }
  out.set(["default_ttl"], `${total}d`, `${reminderPath}: ${reminder} and ${limitPath}: ${limit}: an assignee without updates for ${total} days is removed`);
  if (total > 30) out.set(["max_ttl"], `${total}d`, "as long as default_ttl: a `/claim` or `/renew` may ask for up to that (default `30d`)");
  out.set(["reminder_before"], reminder > 0 && limit > 0 ? `${limit}d` : "none", `${reminderPath}: ${reminder}: the reminder comes after ${reminder} days`);
  out.notes.push(
    "zulipbot counts days from the issue's or its pull requests' last update, anyone's; issue-leases counts from the claim, renewed by the " +
      "holder's own comments and pull request work (`renew_on_activity`, on by default) and by `/renew`.",
  );
}

/** A value written in the file (not one it computes), which this import can judge. */
function isValue(v: unknown): boolean {
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean" || Array.isArray(v) || isMapping(v);
}
