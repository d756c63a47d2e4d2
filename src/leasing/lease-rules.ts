/**
 * The repository's rules a command meets before its transaction: the range
 * of durations (`min_ttl`/`max_ttl`), when to remind, and who may claim at
 * all (`bots`, `claimers`).
 */
import { formatDuration, shortDuration } from "../commands/parse-duration.js";
import type { Config } from "../config/schema.js";
import type { Rule } from "./lease-result.js";

/**
 * Why a duration asked for is outside the repository's range, naming the
 * bound it crossed as the config writes it (`max_ttl: 14d`) and what to ask
 * for instead; null when none was asked (the default applies) or it fits.
 * `verb`: what the caller does (`claim`, `renew`). The duration is said in
 * words, never echoed as typed.
 */
export function ttlRefusal(asked: number | null, config: Config, verb = "claim"): string | null {
  if (asked === null || (asked >= config.minTtl && asked <= config.maxTtl)) return null;
  const long = asked > config.maxTtl;
  const [key, bound] = long ? (["max_ttl", config.maxTtl] as const) : (["min_ttl", config.minTtl] as const);
  const fallback = config.defaultTtl === null ? "no expiry" : formatDuration(config.defaultTtl);
  return (
    `${formatDuration(asked)} is ${long ? "longer" : "shorter"} than this repository allows (\`${key}: ${shortDuration(bound)}\`), so nothing changed: ` +
    `${verb} for \`${shortDuration(bound)}\` or ${long ? "less" : "more"}, or give no duration for the default (${fallback}).`
  );
}

/**
 * When to remind the holder. A lease no longer than the reminder window
 * would be reminded at the next sweep, right after the reply that already
 * says when it ends: no reminder.
 */
export function remindBefore(ttl: number | null, config: Config): number | null {
  return config.reminderBefore !== null && ttl !== null && ttl > config.reminderBefore ? config.reminderBefore : null;
}

/** Whether the repository lets this actor claim at all (`bots`, `claimers`); null when it does. */
export function mayClaim(actor: { type: string; association: string; writer?: boolean }, config: Config): { rule: Rule; reason: string } | null {
  if (!config.bots && actor.type === "Bot") {
    return { rule: "bots", reason: "Bots may not claim issues in this repository (`bots: false` in `.github/issue-leases.yml`)." };
  }
  if (actor.writer) return null;
  const association = actor.association.toUpperCase();
  if (config.claimers === "collaborators" && !["OWNER", "MEMBER", "COLLABORATOR"].includes(association)) {
    return { rule: "claimers", reason: "Only collaborators of this repository can claim issues here (`claimers: collaborators`)." };
  }
  if (config.claimers === "members" && !["OWNER", "MEMBER"].includes(association)) {
    return { rule: "claimers", reason: "Only members of this organisation can claim issues here (`claimers: members`)." };
  }
  return null;
}
