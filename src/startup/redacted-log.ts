/**
 * Probot's logger, as `probot run` makes it (probot/lib/helpers/get-log.js,
 * with the LOG_* settings read as probot/lib/bin/read-env-options.js reads
 * them: settings/server-settings.ts), plus redaction. Probot's HTTP logger
 * (pino-http) writes each request's headers, `Authorization` included, into
 * its "request completed" line: an API caller's GitHub token or the
 * METRICS_TOKEN would be in the logs. Redacted here, in the logger every child inherits, before any
 * request is served.
 */
import { getTransformStream } from "@probot/pino";
import { type Logger, pino } from "pino";
import type { LogSettings } from "../settings/server-settings.js";

/** Request headers that carry credentials. */
export const REDACTED_HEADERS = ["authorization", "cookie", "proxy-authorization", "x-api-key"];

/**
 * Marks a logger made here. Probot's children (`probot.log`, its HTTP
 * logger) are made from it with `Object.create`, so they carry it too: the
 * app can tell it was given this logger rather than `probot run`'s own.
 */
const REDACTS = Symbol.for("issue-leases.redacts-credentials");

/** Whether `log` (or the logger it is a child of) is one `redactedLog` made. */
export function redactsCredentials(log: object): boolean {
  return (log as Record<symbol, unknown>)[REDACTS] === true;
}

export async function redactedLog(settings: LogSettings): Promise<Logger> {
  const transform = await getTransformStream({ logFormat: settings.format, logLevelInString: settings.levelInString, sentryDsn: settings.sentryDsn });
  // As Probot does; SonicBoom is a writable stream, though its types do not say so.
  transform.pipe(pino.destination(1) as unknown as NodeJS.WritableStream);
  const log = pino(
    {
      level: settings.level,
      name: "probot",
      messageKey: settings.messageKey,
      redact: { paths: REDACTED_HEADERS.map((h) => `req.headers["${h}"]`), censor: "[redacted]" },
    },
    transform,
  );
  Object.defineProperty(log, REDACTS, { value: true });
  return log;
}
