/**
 * Probot's own webhook middleware, which its server puts before the app's
 * handlers, is given a path no request has (startup/probot-webhook-path.ts):
 * it answers no delivery, whatever its URL, so that each reaches the app's
 * own route with its body cap and its refusals without the payload.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Probot } from "probot";
import { describe, expect, it } from "vitest";
import { probotWebhookPath } from "../../src/startup/probot-webhook-path.js";

/** A delivery's request as Probot's middleware reads it; any answer would go through `res`, which refuses to be used. */
function delivery(url: string): { req: IncomingMessage; res: ServerResponse } {
  const headers = { "content-type": "application/json", "x-github-event": "issues", "x-github-delivery": "d-1", "x-hub-signature-256": "sha256=00" };
  const refuse = () => {
    throw new Error(`Probot's middleware answered ${url}`);
  };
  return {
    req: { method: "POST", url, headers, on: refuse } as unknown as IncomingMessage,
    res: new Proxy({}, { get: refuse }) as ServerResponse,
  };
}

describe("Probot's own webhook middleware", () => {
  it.each(["/api/github/webhooks", "/api/github/webhooks/", "/api/github/webhooks?issue-leases-serves-it", "/hooks"])(
    "answers no delivery to %s: the app's route does",
    async (url) => {
      const path = url.startsWith("/hooks") ? "/hooks" : "/api/github/webhooks";
      const probot = new Probot({ appId: 1, githubToken: "test-token", logLevel: "fatal", webhookPath: probotWebhookPath(path) });
      const middleware = await probot.getNodeMiddleware();
      const { req, res } = delivery(url);
      expect(await middleware(req, res)).toBe(false);
    },
  );
});
