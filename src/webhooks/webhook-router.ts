/**
 * The chain every webhook handler of the app is added through, around
 * Probot's public `app.on`, `app.onAny` and `app.onError` (nothing of
 * Probot's is replaced). Each handler is registered with Probot as it is
 * asked, in the same order, wrapped so that:
 *
 * - its error is a DeliveryFailed (delivery-errors.ts): what failed, with the
 *   delivery's id and event, never the payload, whoever logs it;
 * - with `watch` (the metrics), the delivery's outcome is told once its last
 *   handler has ended (delivery-outcome.ts), or, for one that failed, once
 *   Probot's `onError` sees it whole.
 *
 * A delivery's handlers are known from what was registered, by
 * @octokit/webhooks' documented rule: those of `name.action`, of `name`, and
 * of any event. Each gets the delivery's own payload object, which tells its
 * handlers from another delivery's.
 */
import type { Probot } from "probot";
import { deliveryFailed, type DeliveryContext } from "./delivery-errors.js";
import { type DeliveredEvent, DeliveryScope, type DeliveryWatch, inDelivery } from "./delivery-outcome.js";

/** Where webhook handlers are added: Probot's own `on` and `onAny`, in the chain. */
export type WebhookRouter = Pick<Probot, "on" | "onAny">;

type Handler = (context: DeliveryContext & { payload: object }) => unknown;

const ANY = "*";

export function webhookRouter(app: Pick<Probot, "on" | "onAny" | "onError">, o: { log: Pick<Probot["log"], "info" | "error">; watch?: DeliveryWatch }): WebhookRouter {
  const registered = new Map<string, number>();
  /** The deliveries whose handlers run, by payload object and delivery id. */
  const open = new WeakMap<object, Map<unknown, DeliveryScope>>();

  const count = (key: string) => registered.set(key, (registered.get(key) ?? 0) + 1);
  const handlersOf = (event: DeliveredEvent) =>
    (event.action ? (registered.get(`${String(event.name)}.${String(event.action)}`) ?? 0) : 0) + (registered.get(String(event.name)) ?? 0) + (registered.get(ANY) ?? 0);

  /** The delivery a handler starting now belongs to: the one of its payload and id still starting handlers, or a new one. */
  const join = (context: DeliveryContext & { payload: object }): DeliveryScope => {
    let byId = open.get(context.payload);
    if (!byId) open.set(context.payload, (byId = new Map()));
    let scope = byId.get(context.id);
    if (!scope || scope.started >= scope.handlers) {
      const event = { name: context.name, action: context.payload.action };
      scope = new DeliveryScope(handlersOf(event), event);
      byId.set(context.id, scope);
    }
    scope.started++;
    return scope;
  };

  const leave = (context: DeliveryContext & { payload: object }, scope: DeliveryScope) => {
    scope.ended++;
    if (scope.ended < scope.handlers) return;
    const byId = open.get(context.payload);
    if (byId?.get(context.id) === scope) byId.delete(context.id);
    // A failure is told by onError, below, once every handler has settled.
    if (!scope.failed) o.watch!(scope.outcome, scope.event);
  };

  const chain =
    (handler: Handler): Handler =>
    async (context) => {
      const scope = o.watch ? join(context) : null;
      try {
        return await (scope ? inDelivery(scope, () => handler(context)) : handler(context));
      } catch (error) {
        if (scope) scope.failed = true;
        throw deliveryFailed(context, error, o.log);
      } finally {
        if (scope) leave(context, scope);
      }
    };

  if (o.watch) {
    const watch = o.watch;
    app.onError((error) => {
      const event = (error as { event?: { id?: unknown; name?: unknown; payload?: { action?: unknown } } }).event;
      watch("failed", { name: event?.name, action: event?.payload?.action });
      if (event?.payload && typeof event.payload === "object") open.get(event.payload)?.delete(event.id);
    });
  }

  return {
    on: ((name: string | string[], handler: Handler) => {
      for (const key of [name].flat()) count(key);
      app.on(name as never, chain(handler) as never);
    }) as WebhookRouter["on"],
    onAny: ((handler: Handler) => {
      count(ANY);
      app.onAny(chain(handler) as never);
    }) as WebhookRouter["onAny"],
  };
}
