/**
 * The table's rows for what the app does: its loops, GitHub's limits, the
 * metrics, the API and its event stream, outgoing webhooks, MCP and the
 * board. Each has a default that serves an organisation; a wrong value ends
 * the start, naming it.
 */
import type { SettingSection } from "./setting-row.js";

export const APP_SECTIONS = [
  {
    title: "Loops",
    about: "What the app does on its own, besides webhooks: expiry, the inventory of open issues, the outbox and the lease events.",
    rows: [
      { name: "SWEEP_INTERVAL_MS", type: "whole number", default: "60000", who: ["server"], example: { set: "60000" },
        meaning: "How often expired leases are ended and reminders sent, in milliseconds." },
      { name: "INVENTORY_RECONCILE", type: "duration", default: "6h", who: ["server"], example: "6h",
        meaning: "How often each repository's open issues (claim next, POST .../leases/next) are filled again from GitHub's issue list; 0 or off: never." },
      { name: "INVENTORY_FILL_MAX_PAGES", type: "whole number", default: "200", who: ["server"], example: "200",
        meaning: "How many requests (100 issues each) one fill may make." },
      { name: "EVENTS_KEEP", type: "duration", default: "7d", who: ["server"], example: "7d",
        meaning: "How long lease events are kept (the stream's Last-Event-ID, `issue-leases events`): a day at least. Older ones are deleted every hour." },
      { name: "OUTBOX_LOCK_MS", type: "whole number", default: "20000", who: ["server"], example: "20000",
        meaning:
          "How long an outbox effect stays with a process that stopped extending its lock (killed mid-effect) before another replica " +
          "takes it over, in milliseconds. A live process extends it every third of this while it applies the effect." },
    ],
  },
  {
    title: "GitHub's limits",
    about:
      "Kept by the app per installation (README, \"GitHub's limits\"). Divide the first two among replicas, or lower them to share an installation with other apps.",
    rows: [
      { name: "GITHUB_CONTENT_PER_MINUTE", type: "whole number", default: "80", who: ["server"], example: "80",
        meaning: "Content-creating requests a minute, 1 to 80 (GitHub's limit)." },
      { name: "GITHUB_CONTENT_PER_HOUR", type: "whole number", default: "500", who: ["server"], example: "500",
        meaning: "Content-creating requests an hour, 1 to 500 (GitHub's limit)." },
      { name: "GITHUB_MIN_PAUSE_S", type: "whole number", default: "60", who: ["server"], example: "60",
        meaning: "The least a secondary rate limit pauses an installation, in seconds, 1 to 3600." },
      { name: "GITHUB_WRITES", type: "choice", default: "graphql", who: ["server"], example: "graphql",
        meaning: "How an effect writes: one GraphQL document per command (graphql), or a REST request per write (rest, for a GitHub Enterprise Server that lacks a mutation)." },
      { name: "LABEL_LINGER_S", type: "whole number", default: "86400", who: ["server"], example: "86400",
        meaning:
          "On graphql, how long a holder or token label no lease uses stays in the repository before it is deleted, in seconds " +
          "(0 to 2592000; 0: at once), so that a holder's next claim is one request (README, \"Labels\")." },
    ],
  },
  {
    title: "Metrics",
    about: "GET /metrics (Prometheus): off unless METRICS=1 or METRICS_TOKEN is set.",
    rows: [
      { name: "METRICS", type: "on/off", default: null, who: ["server"], example: "1",
        meaning: "1 (or true): serve /metrics to anyone who can reach the port." },
      { name: "METRICS_TOKEN", type: "secret", default: null, who: ["server"], example: "",
        meaning: "Serve /metrics only with `Authorization: Bearer <token>`." },
    ],
  },
  {
    title: "The API for bots",
    about: "/api/v1/...: limits per replica, in memory.",
    rows: [
      { name: "API_RATE_LIMIT", type: "number", default: "120", who: ["server"], example: "120",
        meaning: "Requests per minute per GitHub account; 0 turns the limit off." },
      { name: "API_RATE_BURST", type: "number", default: "60", who: ["server"], example: "60",
        meaning: "How many requests an account may make at once after a quiet spell (default 60, or API_RATE_LIMIT when lower)." },
      { name: "API_ADDRESS_RATE_LIMIT", type: "number", default: "120", who: ["server"], example: "120",
        meaning: "Per client address: the listing (GET /api/v1/leases) and the board's pages, requests a minute in bursts of 60; 0 turns it off." },
      { name: "API_UNKNOWN_TOKEN_LIMIT", type: "number", default: "20", who: ["server"], example: "20",
        meaning:
          "Per client address, before a token is known: how many tokens GitHub may refuse (or not answer for) a minute, in bursts of 10, " +
          "past which the answer is 429 without asking GitHub; 0 turns it off. Good tokens take nothing of it." },
      { name: "TRUST_PROXY_HOPS", type: "whole number", default: "0", who: ["server"], example: "0",
        meaning: "Behind your own reverse proxies, how many there are, so that X-Forwarded-For names the client." },
    ],
  },
  {
    title: "The lease event stream",
    about: "GET /api/v1/events: streams past any of the limits are answered 429.",
    rows: [
      { name: "EVENTS_HEARTBEAT_MS", type: "whole number", default: "15000", who: ["server"], example: "15000",
        meaning: "A `: keep-alive` comment this often on each stream (ms, 10 or more), so that proxies do not close a quiet one." },
      { name: "EVENTS_POLL_MS", type: "whole number", default: "5000", who: ["server"], example: "5000",
        meaning: "The ledger read this often besides its notices of new events (ms, 10 or more)." },
      { name: "EVENTS_STREAMS_MAX", type: "whole number", default: "1000", who: ["server"], example: "1000",
        meaning: "Streams open at once on this replica." },
      { name: "EVENTS_STREAMS_PER_ADDRESS", type: "whole number", default: "10", who: ["server"], example: "10",
        meaning: "Anonymous streams from one client address." },
      { name: "EVENTS_STREAMS_PER_CALLER", type: "whole number", default: "100", who: ["server"], example: "100",
        meaning: "Streams of one GitHub account, by token or session, wherever they come from." },
      { name: "EVENTS_CLIENT_BUFFER_BYTES", type: "whole number", default: "1048576", who: ["server"], example: "1048576",
        meaning: "What a client may leave unread before it is disconnected (1024 or more); it then resumes with its Last-Event-ID." },
    ],
  },
  {
    title: "Outgoing webhooks",
    about: "A repository's `webhooks:` in its config.",
    rows: [
      { name: "EVENTS_WEBHOOK_SECRET", type: "secret", default: null, who: ["server", "cli"], example: "",
        meaning:
          "The secret every installation's signing key is derived from (Standard Webhooks signatures, `webhook-signature`; `issue-leases webhook-key` shows a key); " +
          "without it no webhook is sent. Make one with `openssl rand -hex 32`." },
      { name: "EVENTS_WEBHOOK_ALLOW_PRIVATE", type: "on/off", default: null, who: ["server", "cli"], example: "1",
        meaning: "1: also allow loopback and private-range targets, and plain http:// (a repository's config may not make the app call into its own network otherwise)." },
    ],
  },
  {
    title: "MCP",
    about: "The lease tools over MCP at /mcp (Streamable HTTP, the caller's GitHub token as bearer; README, \"Coding agents\").",
    rows: [
      { name: "MCP", type: "on/off", default: "on", who: ["server"], example: "on",
        meaning: "off: no /mcp." },
      { name: "MCP_SESSIONS_MAX", type: "whole number", default: "1000", who: ["server"], example: "1000",
        meaning: "Sessions open at once on this replica, past which `initialize` is 429." },
      { name: "MCP_SESSIONS_PER_CALLER", type: "whole number", default: "100", who: ["server"], example: "100",
        meaning: "Sessions of one caller (an account, or a bot's installation), past which `initialize` is 429." },
      { name: "MCP_SESSION_IDLE", type: "duration", default: "30m", who: ["server"], example: "30m",
        meaning: "A session with neither a request nor an open stream for this long is taken for a dead agent's and ended, its leases left to expire." },
    ],
  },
  {
    title: "The board",
    about: "/leases, and GET /api/v1/leases (its JSON, part of the API).",
    rows: [
      { name: "DASHBOARD", type: "on/off", default: "on", who: ["server"], example: "on",
        meaning: "off: no page and no sign-in (the JSON listing stays)." },
      { name: "GITHUB_CLIENT_ID", type: "text", default: null, who: ["server"], example: "",
        meaning:
          "\"Sign in with GitHub\", so that people also see the private repositories they can access: the GitHub App's Client ID (not its " +
          "App ID), from its settings (\"General\"), where the callback URL https://your-host/oauth/callback must be added. Without it " +
          "and GITHUB_CLIENT_SECRET the board shows public repositories only." },
      { name: "GITHUB_CLIENT_SECRET", type: "secret", default: null, who: ["server"], example: "",
        meaning: "A client secret of the GitHub App, with GITHUB_CLIENT_ID." },
      { name: "PUBLIC_URL", type: "URL", default: null, who: ["server"], example: "https://leases.example.com",
        meaning:
          "The app's public address, behind a proxy or load balancer: the sign-in's callback URL is built from it, and cookies are " +
          "Secure when it is https. Without it, the request's Host (and X-Forwarded-Proto: https from a proxy)." },
      { name: "SESSION_SECRET", type: "secret", default: null, who: ["server"], example: "",
        meaning: "The key that signs board sessions (the same on every replica); default derived from GITHUB_CLIENT_SECRET. Changing either signs everyone out." },
    ],
  },
] as const satisfies readonly SettingSection[];
