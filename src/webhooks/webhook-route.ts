/**
 * The app's webhook route: GitHub's deliveries at WEBHOOK_PATH
 * (`/api/github/webhooks`) and at `/`, where Probot's setup page registers
 * a new app's webhook (manifest-creation.js: `${the page's own origin}/`
 * unless WEBHOOK_PROXY_URL is set), which app.yml cannot fix (it would have
 * to name the host). Each is @octokit/webhooks' own node middleware (its
 * answers: 200, 202 after 9 s, 400 for a missing header, 415, 404) behind
 * the body cap (webhook-body-limit.ts), over a receiver that calls Probot's
 * Webhooks' public `verify` and `receive`:
 *
 * - verified before anything is logged of it: what a forged delivery says
 *   is nobody's business, so a refusal is one line without its payload;
 * - parsed once verified, then received: the app's handlers run through
 *   the webhook router (webhook-router.ts).
 *
 * Probot's own middleware, which its server puts before every handler the
 * app adds, is handed a path that no request has (startup/start.ts): every
 * delivery comes here.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createNodeMiddleware, type Webhooks } from "@octokit/webhooks";
import type { Probot } from "probot";
import { short } from "./delivery-errors.js";
import type { DeliveryWatch } from "./delivery-outcome.js";
import { limitBodies, middlewareLog, WEBHOOK_BODY_LIMIT } from "./webhook-body-limit.js";

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
type Delivery = Parameters<Webhooks["verifyAndReceive"]>[0];

export interface WebhookRouteOptions {
  /** WEBHOOK_PATH. */
  path: string;
  log: Pick<Probot["log"], "warn">;
  watch?: DeliveryWatch;
  limit?: number;
}

/** Verifies a delivery's signature, then hands it to Probot's handlers; a refusal is answered 400 as @octokit/webhooks answers it. */
export function verifiedReceiver(webhooks: Pick<Webhooks, "verify" | "receive">, o: Pick<WebhookRouteOptions, "log" | "watch">) {
  const refuse = (event: Delivery, message: string, why: string): never => {
    o.log.warn({ delivery: short(event.id), webhook: short(event.name) }, why);
    const error = Object.assign(new Error(message), { status: 400 });
    throw new AggregateError([error], message);
  };
  return async (event: Delivery): Promise<void> => {
    if (!(await webhooks.verify(event.payload, event.signature).catch(() => false))) {
      // An unsigned or forged request names whatever event it likes.
      o.watch?.("rejected", null);
      refuse(
        event,
        "[@octokit/webhooks] signature does not match event payload and secret",
        "refused a delivery whose signature does not match WEBHOOK_SECRET (if GitHub sent it, its webhook secret is another); its payload is not logged",
      );
    }
    let payload: { action?: unknown };
    try {
      payload = JSON.parse(event.payload) as { action?: unknown };
    } catch {
      o.watch?.("failed", { name: event.name, action: undefined });
      return refuse(event, "Invalid JSON", "refused a signed delivery that is not JSON");
    }
    try {
      await webhooks.receive({ id: event.id, name: event.name, payload } as Parameters<Webhooks["receive"]>[0]);
    } catch (error) {
      // A handler's failure is told by the router (through onError), with the delivery; one before any handler ran is told here.
      if ((error as { event?: unknown }).event === undefined) o.watch?.("failed", { name: event.name, action: payload?.action });
      throw error;
    }
  };
}

/** The route: a POST to `/` or any request to `o.path` is a delivery's (false for the rest). `o.log`: the refusals'. */
export function webhookRoute(app: Pick<Probot, "webhooks" | "log">, o: WebhookRouteOptions): Handler {
  // The middleware calls nothing of its Webhooks but verifyAndReceive (@octokit/webhooks' create-middleware.js).
  const receiver = { verifyAndReceive: verifiedReceiver(app.webhooks, o) } as unknown as Webhooks;
  const log = middlewareLog(app.log.child({ name: "webhooks" }));
  const at = (path: string) => limitBodies(createNodeMiddleware(receiver, { path, log }), path, o.limit ?? WEBHOOK_BODY_LIMIT);
  const atPath = at(o.path);
  const atRoot = at("/");
  return async (req, res) => {
    // Any other request to `/` is the board's (GET / redirects to /leases).
    if (req.method === "POST" && (req.url ?? "").split("?")[0] === "/") {
      await atRoot(req, res);
      return true;
    }
    return atPath(req, res);
  };
}
