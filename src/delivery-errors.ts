/**
 * What a refused delivery logs: why, with the delivery id and event it
 * claims, never its payload. Left to @octokit/webhooks, a delivery whose
 * signature does not match is handed to the error handlers whole
 * (`error.event`, payload included), and Probot's logs it, payload and all,
 * before anything has checked who sent it; the middleware then logs it again.
 */
import type { Probot } from "probot";

type Webhooks = Probot["webhooks"];
type Logger = Probot["log"];

/** Delivery ids and event names come from the request: kept short before they are logged. */
const short = (v: unknown) => String(v).slice(0, 100);

/** Deliveries verified before anything is logged of them; refused ones are logged without their payload. */
export function guardDeliveries(app: Probot, log: Logger): void {
  const webhooks: Webhooks = app.webhooks;

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
