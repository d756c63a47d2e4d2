/** What `/help` shows, from a repository's config (rendered by github/render-help.ts). */
import type { Config } from "../config/schema.js";
import type { HelpView } from "../commands/reply.js";

/** `mention`: the app's slug when the repository reads the mention form. */
export function helpView(config: Config, mention: string | undefined): HelpView {
  const aliases: HelpView["aliases"] = { claim: [], renew: [], release: [], lease: [] };
  for (const { word, command } of config.aliases) aliases[command].push(word);
  return {
    aliases,
    mention: mention ?? null,
    defaultTtl: config.defaultTtl,
    minTtl: config.minTtl,
    maxTtl: config.maxTtl,
    reminderBefore: config.reminderBefore,
    maxLeasesPerHolder: config.maxLeasesPerHolder,
    maxLeasesPerHolderInOrg: config.maxLeasesPerHolderInOrg,
    limitsByLabel: config.limitsByLabel,
    claimers: config.claimers,
    bots: config.bots,
    authorFirst: config.authorFirst,
    exemptLabels: config.exemptLabels,
    maxRepliesPerHour: config.maxRepliesPerHour,
    assignmentClaims: config.assignment === "claims",
  };
}
