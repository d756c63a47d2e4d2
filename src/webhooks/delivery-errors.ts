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
 * context and drops the delivery it is handed.
 */
import type { Probot } from "probot";
import { DeadlinePassed } from "./track-deliveries.js";

type Webhooks = Probot["webhooks"];
type Logger = Probot["log"];

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

/** Delivery ids and event names come from the request: kept short before they are logged. */
const short = (v: unknown) => String(v).slice(0, 100);

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

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

type Context = { id?: unknown; name?: unknown; payload?: { action?: unknown } };
type Handler = (context: Context) => unknown;

/**
 * Handlers' errors as DeliveryFailed; a delivery past its deadline logs how
 * its work ended once it does (nobody else is left to), and refused
 * deliveries are logged without their payload.
 */
export function guardDeliveries(app: Probot, log: Logger): void {
  const webhooks: Webhooks = app.webhooks;

  const failed = (context: Context, error: unknown): DeliveryFailed => {
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
  };
  const guard =
    (handler: Handler): Handler =>
    async (context) => {
      try {
        return await handler(context);
      } catch (error) {
        throw failed(context, error);
      }
    };

  // Every handler, whoever adds it (Probot's app.on and app.onAny call these).
  const on = webhooks.on as unknown as (name: unknown, handler: Handler) => void;
  webhooks.on = ((name: unknown, handler: Handler) => on(name, guard(handler))) as unknown as Webhooks["on"];
  const onAny = webhooks.onAny as unknown as (handler: Handler) => void;
  webhooks.onAny = ((handler: Handler) => onAny(guard(handler))) as unknown as Webhooks["onAny"];

  // Verified before anything is logged of it: what a forged delivery says is nobody's business.
  const receive = webhooks.receive;
  webhooks.verifyAndReceive = async (event) => {
    const refuse = (message: string, why: string): never => {
      log.warn({ delivery: short(event.id), webhook: short(event.name) }, why);
      const error = Object.assign(new Error(message), { status: 400 });
      throw new AggregateError([error], message);
    };
    const payload = event.payload;
    if (!(await webhooks.verify(payload, event.signature).catch(() => false))) {
      refuse(
        "[@octokit/webhooks] signature does not match event payload and secret",
        "refused a delivery whose signature does not match WEBHOOK_SECRET (if GitHub sent it, its webhook secret is another); its payload is not logged",
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      refuse("Invalid JSON", "refused a signed delivery that is not JSON");
    }
    return receive({ id: event.id, name: event.name, payload: parsed } as Parameters<Webhooks["receive"]>[0]);
  };
}
