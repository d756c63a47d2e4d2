/**
 * What a failed or refused delivery logs: what failed, with the delivery's id
 * and event and the GitHub request that failed, never the payload. Left to
 * @octokit/webhooks and Probot, a handler's error is given the whole delivery
 * (`error.event`, payload included) and logged with it by Probot's error
 * handler and again by the middleware; a delivery with a bad signature is
 * logged payload and all before anything has checked who sent it.
 *
 * Probot's error handler still writes one line per failed handler, with the
 * delivery id: the error it is given is a DeliveryFailed, which carries the
 * context and drops the delivery it is handed. Every handler's errors are
 * made one by the webhook router (webhook-router.ts); a refused delivery is
 * logged by the webhook route (webhook-route.ts), before it is parsed.
 */
import type { Probot } from "probot";
import { DeadlinePassed } from "./track-deliveries.js";

type Logger = Pick<Probot["log"], "info" | "error">;

/** What is logged of an error: its message, and the GitHub request and error code when there are. */
export interface FailureFields {
  delivery?: string;
  /** `issue_comment.created` */
  webhook?: string;
  /** The GitHub request that failed: `POST http://github.example/api/v3/…` (no query). */
  github?: string;
  /** The system error under it: ENOTFOUND, ECONNREFUSED, ETIMEDOUT. */
  code?: string;
}

/** A handler's error as @octokit/webhooks and Probot get it: the message and context, no payload. */
export class DeliveryFailed extends Error {
  readonly status: number;
  constructor(message: string, status: number, fields: FailureFields, stack?: string) {
    super(message);
    this.status = status;
    Object.assign(this, fields);
    if (stack) this.stack = stack;
  }
  /** @octokit/webhooks assigns the whole delivery here before its error handlers log the error: it is dropped. */
  set event(_delivery: unknown) {}
  get event(): undefined {
    return undefined;
  }
}
// Not enumerable, or every log line would repeat it beside `type`.
Object.defineProperty(DeliveryFailed.prototype, "name", { value: "DeliveryFailed" });

/** The failed GitHub request and the system error code of an error (an Octokit RequestError wraps fetch's TypeError, which wraps the code). */
function failureFields(error: unknown): Omit<FailureFields, "delivery" | "webhook"> {
  const fields: Omit<FailureFields, "delivery" | "webhook"> = {};
  const request = (error as { request?: { method?: unknown; url?: unknown } } | null)?.request;
  if (request && typeof request.url === "string") {
    try {
      const url = new URL(request.url);
      fields.github = `${String(request.method ?? "")} ${url.origin}${url.pathname}`;
    } catch {
      // Not a URL: nothing to say of it.
    }
  }
  let e = error as { code?: unknown; cause?: unknown } | null | undefined;
  for (let depth = 0; e && depth < 4; depth++, e = e.cause as typeof e) {
    if (typeof e.code === "string") {
      fields.code = e.code;
      break;
    }
  }
  return fields;
}

/** Delivery ids and event names come from the request: kept short before they are logged. */
export const short = (v: unknown) => String(v).slice(0, 100);

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The delivery a handler was given, as far as its errors tell it. */
export type DeliveryContext = { id?: unknown; name?: unknown; payload?: { action?: unknown } };

/**
 * A handler's error as DeliveryFailed: its message, status and the GitHub
 * request that failed, with the delivery's id and event, no payload. A
 * delivery past its deadline logs how its work ended once it does (nobody
 * else is left to).
 */
export function deliveryFailed(context: DeliveryContext, error: unknown, log: Logger): DeliveryFailed {
  if (error instanceof DeliveryFailed) return error;
  const action = context.payload?.action;
  const where: FailureFields = {
    delivery: short(context.id),
    webhook: short(typeof action === "string" ? `${String(context.name)}.${action}` : context.name),
  };
  if (error instanceof DeadlinePassed) {
    error.work.then(
      () => log.info(where, `delivery ${where.delivery} (${where.webhook}) done after its deadline; a redelivery will change nothing`),
      (late: unknown) =>
        log.error({ ...where, ...failureFields(late) }, `delivery ${where.delivery} (${where.webhook}) failed after its deadline: ${messageOf(late)}`),
    );
    return new DeliveryFailed(error.message, 500, { ...where, ...(error.github ? { github: error.github } : {}), ...(error.code ? { code: error.code } : {}) });
  }
  const status = (error as { status?: unknown } | null)?.status;
  return new DeliveryFailed(
    messageOf(error),
    typeof status === "number" && status >= 400 && status < 600 ? status : 500,
    { ...where, ...failureFields(error) },
    error instanceof Error ? error.stack : undefined,
  );
}
