/**
 * triagebot (rust-lang's bot, `@rustbot`): `triagebot.toml` at the
 * repository's root. Its `[assign]` table turns on issue assignment
 * (`@rustbot claim`, `@rustbot release-assignment`, `@rustbot assign
 * @user`) and, with the same table, reviewer assignment on pull requests
 * (`r? @user`, `[assign.owners]`), which issue-leases does not do. Its
 * claims never expire. The keys are those of triagebot's `AssignConfig`
 * and of the rust-forge pages "Issue Assignment" and "PR Assignment".
 */
import { Imported, isMapping, NotThisBot, show } from "./imported.js";

const ASSIGN_KEYS: Record<string, string> = {
  warn_non_default_branch: "a warning on pull requests opened against another branch; issue-leases leaves pull requests' branches alone.",
  contributing_url: "a link in triagebot's welcome to new contributors; issue-leases posts no welcome.",
  llm_policy_url: "a link in triagebot's welcome to new contributors; issue-leases posts no welcome.",
  community_reviews: "reviews before a reviewer is assigned to a pull request; issue-leases does not assign reviewers.",
  adhoc_groups: "groups for reviewer assignment on pull requests (`r? group`); issue-leases does not assign reviewers.",
  owners: "reviewers picked by the files a pull request changes; issue-leases does not assign reviewers.",
  users_on_vacation: "people not to assign as reviewers; issue-leases does not assign reviewers, and anyone may claim.",
  review_prefs: "reviewers' preferences; issue-leases does not assign reviewers.",
  custom_messages: "triagebot's messages on new pull requests; issue-leases' replies are its own (see docs/examples.md).",
  custom_welcome_messages: "triagebot's messages on new pull requests; issue-leases' replies are its own (see docs/examples.md).",
};

/** The parsed TOML as issue-leases config; NotThisBot when it is not a table of tables. */
export function importTriagebot(toml: unknown): Imported {
  if (!isMapping(toml)) throw new NotThisBot("a TOML file is a table; this is not one");
  const out = new Imported("triagebot", "its `[assign]` table in `triagebot.toml`");
  const others = Object.keys(toml).filter((k) => k !== "assign");
  // Named together, every one of them: a long list folds over comment lines.
  if (others.length > 0) out.none(others.map((k) => `[${k}]`).join(", "), "triagebot's other features, not about claiming issues.");
  const assign = toml.assign;
  if (assign === undefined) {
    out.notes.push("This `triagebot.toml` has no `[assign]` table, so triagebot's claim commands are off here: there is nothing to keep.");
    return out;
  }
  if (!isMapping(assign)) {
    out.none(`assign (${show(assign)})`, "`assign` must be a table, `[assign]`; triagebot would refuse this file.");
    return out;
  }

  out.set(["default_ttl"], "none", "triagebot's assignments never expire; delete this line for leases that end after 7 days unless renewed");
  out.set(["mentions"], true, "`@rustbot claim`: with this, issue-leases reads `@<its app slug> claim` (and `/claim` always)");
  out.alias("release-assignment", "release", "release-assignment", "`@rustbot release-assignment`: the assignee's or a team member's (issue-leases: the holder's, or write permission)");
  out.alias(
    "assign",
    "claim",
    "assign",
    "`@rustbot assign @user` by a team member: `assign @user` then gives the lease as `/claim @user` does (write permission, asked of GitHub)",
  );
  out.notes.push(
    "`@rustbot claim` works for anyone, as `/claim` does; where GitHub cannot assign the person, triagebot assigns itself and edits the issue, " +
      "issue-leases keeps the lease and says so in its reply.",
  );
  for (const [key, value] of Object.entries(assign)) {
    const why = ASSIGN_KEYS[key];
    out.none(`assign.${key} (${show(value)})`, why ?? "not a key of triagebot's `[assign]` that this import knows.");
  }
  return out;
}
