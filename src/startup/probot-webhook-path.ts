/**
 * The webhook path Probot's own server is given. Its server puts Probot's
 * webhook middleware before every handler an app adds (probot's
 * server.js `start`), and that middleware reads a body whole before any
 * check and logs a forged delivery with its payload. Given the app's path
 * with a query, it answers no request: a request's pathname never has one
 * (@octokit/webhooks compares the pathname with its path), so each delivery
 * goes on to the app's own route (webhooks/webhook-route.ts), the webhook
 * proxy's too, which Probot sends to `http://HOST:PORT` and this path.
 */
export function probotWebhookPath(appPath: string): string {
  return `${appPath}?issue-leases-serves-it`;
}
