/**
 * The reply to `/help`: the commands and aliases this repository reads, its
 * durations and its limits, in plain words. Built from a `HelpView`, which
 * the handler makes from the repository's config (leasing/help.ts); every
 * word in it is the app's own or a validated alias, and label names are
 * shown as code.
 */
import { formatDuration } from "../commands/parse-duration.js";
import { codeSpan } from "./code-span.js";
import type { HelpView } from "../commands/reply.js";

const ROWS: Array<[keyof HelpView["aliases"] | "help", string, string]> = [
  ["claim", "`/claim [duration] [note]`", "take this issue; a maintainer can `/claim @login` to give it to someone"],
  ["renew", "`/renew [duration]`", "extend your lease"],
  ["release", "`/release [note]`", "free the issue; a maintainer can `/release @login`"],
  ["lease", "`/lease`", "say who holds the issue, and its recent holders"],
  ["help", "`/help`", "this list (also `/lease help`)"],
];

export function renderHelp(h: HelpView): string {
  const rows = ROWS.map(([name, form, does]) => {
    const aliases = name === "help" ? [] : h.aliases[name];
    return `| ${form} | ${aliases.map((a) => `\`/${a}\``).join(", ")} | ${does} |`;
  });
  const parts = [
    "This repository reads these commands, one per comment, on a line of their own:",
    ["| Command | Also written | What it does |", "| --- | --- | --- |", ...rows].join("\n"),
  ];
  if (h.mention !== null) parts.push(`Each can also follow a mention of the app, without its slash: \`@${h.mention} claim\`.`);
  if (h.assignmentClaims) {
    parts.push("Assigning someone in the issue's sidebar, by someone with write permission, gives them a lease; unassigning the holder ends it.");
  }
  parts.push(durations(h));
  parts.push(limits(h));
  return parts.join("\n\n");
}

function durations(h: HelpView): string {
  const range = `from ${formatDuration(h.minTtl)} to ${formatDuration(h.maxTtl)}`;
  const lasts =
    h.defaultTtl === null
      ? `A lease has no expiry unless you name a duration ${range} (\`2h\`, \`3d\`)`
      : `A lease lasts ${formatDuration(h.defaultTtl)} unless you name a duration ${range} (\`2h\`, \`3d\`)`;
  const reminder = h.reminderBefore === null ? "" : `; its holder is reminded ${formatDuration(h.reminderBefore)} before it ends`;
  const exempt = h.exemptLabels.length === 0 ? "" : ` A lease does not expire while its issue is labelled ${orList(h.exemptLabels.map((l) => codeSpan(l, 50)))}.`;
  return `${lasts}${reminder}.${exempt}`;
}

function limits(h: HelpView): string {
  const who =
    h.claimers === "anyone" ? "Anyone may claim" : h.claimers === "collaborators" ? "Collaborators of this repository may claim" : "Members of the organisation may claim";
  const sentences = [`${who}${h.bots ? ", bots included" : "; bots may not"}.`];
  if (h.authorFirst !== null) {
    sentences.push(`For ${formatDuration(h.authorFirst)} after an issue is opened, only its author and maintainers may claim it.`);
  }
  const caps: string[] = [];
  if (h.maxLeasesPerHolder > 0) caps.push(`${leases(h.maxLeasesPerHolder)} in this repository`);
  if (h.maxLeasesPerHolderInOrg > 0) caps.push(`${leases(h.maxLeasesPerHolderInOrg)} across the organisation`);
  for (const { label, limit } of h.limitsByLabel) if (limit > 0) caps.push(`${leases(limit)} on issues labelled ${codeSpan(label, 50)}`);
  sentences.push(caps.length === 0 ? "There is no limit on how many issues one person may hold." : `One person may hold at most ${andList(caps)}.`);
  if (h.maxRepliesPerHour > 0) {
    const times = h.maxRepliesPerHour === 1 ? "once" : `${h.maxRepliesPerHour} times`;
    sentences.push(`The app answers one person's commands at most ${times} an hour here (members and collaborators are not limited).`);
  }
  return sentences.join(" ");
}

const leases = (n: number) => (n === 1 ? "1 lease" : `${n} leases`);
const andList = (items: string[]) => (items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`);
const orList = (items: string[]) => (items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`);
