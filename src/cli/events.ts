/** `issue-leases events [--since D] [--json]`: the lease events the ledger kept, oldest first. */
import { formatDuration, parseDuration } from "../commands/parse-duration.js";
import type { StoredEvent } from "../ledger/events/event-types.js";
import type { EventLog } from "../ledger/events/event-roles.js";
import { EXIT, usageError } from "./cli-error.js";
import type { CliIo } from "./cli-io.js";
import { DATABASE_HELP } from "./database-help.js";
import { formatTable, isoTime } from "./format-table.js";

export const EVENTS_HELP = `Usage: issue-leases events [--since D] [--json]

The lease events made in the last D (default 1h), oldest first, one line
each: position (the stream's event id), the installation's sequence number,
time (UTC), type, issue, holder and its instance, token, expiry, who made the
change and why (command, api, expiry, maintainer, close, label_removed,
handoff, work). Events are kept for EVENTS_KEEP (7 days by default).

  --since D  how far back: 30m, 6h, 2d, 1w…
  --json     JSON Lines: one event per line, as the stream and the outgoing
             webhooks send it ({id, seq, type, at, repo, issue, holder, token,
             expires_at, actor, cause})

Database:
${DATABASE_HELP}`;

const DEFAULT_SINCE_MS = 3_600_000;
/** Events read per query. */
const PAGE = 500;

type Values = Record<string, string | boolean | undefined>;

/** `--since` in ms; checked before the database is opened. */
export function sinceOption(values: Values): number {
  if (values.since === undefined) return DEFAULT_SINCE_MS;
  const ms = typeof values.since === "string" ? parseDuration(values.since) : null;
  if (ms === null) throw usageError(`--since takes a duration such as 30m, 6h or 2d, not ${JSON.stringify(values.since)}`);
  return ms;
}

export async function runEvents(ledger: EventLog, values: Values, io: CliIo): Promise<number> {
  const sinceMs = sinceOption(values);
  const since = io.clock() - sinceMs;
  const json = values.json === true;
  const rows: string[][] = [];
  const show = (e: StoredEvent) => {
    if (json) io.out(JSON.stringify(e.event));
    else rows.push(row(e));
  };
  // The first page by time, then on by position: a long hour is read whole, a page at a time.
  let page = await ledger.eventsSince(since, PAGE);
  while (page.length > 0) {
    for (const e of page) if (Date.parse(e.event.at) >= since) show(e);
    if (page.length < PAGE) break;
    page = await ledger.eventsAfter(page[page.length - 1]!.pos, { limit: PAGE });
  }
  if (json) return EXIT.ok;
  if (rows.length === 0) io.out(`no lease events in the last ${formatDuration(sinceMs)}`);
  else io.out(formatTable(["ID", "SEQ", "TIME", "TYPE", "ISSUE", "HOLDER", "INSTANCE", "TOKEN", "EXPIRES", "ACTOR", "CAUSE"], rows));
  return EXIT.ok;
}

function row({ event: e }: StoredEvent): string[] {
  return [
    e.id,
    String(e.seq),
    isoTime(Date.parse(e.at))!,
    e.type,
    `${e.repo}#${e.issue}`,
    e.holder.login,
    e.holder.instance ?? "-",
    String(e.token),
    e.expires_at === null ? "never" : isoTime(Date.parse(e.expires_at))!,
    e.actor?.login ?? "-",
    e.cause,
  ];
}
