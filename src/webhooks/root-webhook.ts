/**
 * GitHub's deliveries at `/`, as well as at Probot's /api/github/webhooks.
 * Probot's setup page registers the app with the webhook URL
 * `${the page's own origin}/` (manifest-creation.js: `hook_attributes.url`
 * is `${baseUrl}/` unless WEBHOOK_PROXY_URL is set), which app.yml cannot
 * fix (it would have to name the host). Without this route every delivery
 * to a freshly registered app is answered 404 and nothing happens.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Probot } from "probot";

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean> | boolean;

/**
 * A POST to `/` goes through Probot's own webhook middleware for path `/`:
 * the same signature check against WEBHOOK_SECRET (an unsigned or forged
 * delivery is refused) and the same event handlers. Any other request to `/`
 * is left to the handlers after it (GET / redirects to Probot's page).
 */
export async function rootWebhookHandler(app: Probot): Promise<Handler> {
  const middleware = await app.getNodeMiddleware({ path: "/" });
  return async (req, res) => {
    if (req.method !== "POST" || (req.url ?? "").split("?")[0] !== "/") return false;
    await middleware(req, res);
    return true;
  };
}
