/**
 * Probot's logger, as `probot run` makes it (probot/lib/helpers/get-log.js,
 * with the environment read as probot/lib/bin/read-env-options.js reads
 * it), plus redaction. Probot's HTTP logger (pino-http) writes each
 * request's headers, `Authorization` included, into its "request completed"
 * line: an API caller's GitHub token or the METRICS_TOKEN would be in the
 * logs. Redacted here, in the logger every child inherits, before any
 * request is served.
 */
import { getTransformStream } from "@probot/pino";
import { type Logger, pino } from "pino";

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

export async function redactedLog(env: NodeJS.ProcessEnv): Promise<Logger> {
  const logFormat = env.LOG_FORMAT ? (env.LOG_FORMAT === "pretty" ? "pretty" : "json") : env.NODE_ENV === "production" ? "json" : "pretty";
  const transform = await getTransformStream({ logFormat, logLevelInString: env.LOG_LEVEL_IN_STRING === "true", sentryDsn: env.SENTRY_DSN });
  // As Probot does; SonicBoom is a writable stream, though its types do not say so.
  transform.pipe(pino.destination(1) as unknown as NodeJS.WritableStream);
  const log = pino(
    {
      level: env.LOG_LEVEL || "info",
      name: "probot",
      messageKey: env.LOG_MESSAGE_KEY || "msg",
      redact: { paths: REDACTED_HEADERS.map((h) => `req.headers["${h}"]`), censor: "[redacted]" },
    },
    transform,
  );
  Object.defineProperty(log, REDACTS, { value: true });
  return log;
}
