/**
 * The table's rows for the server itself: the GitHub App's credentials, the
 * database, the HTTP server, the logs, where GitHub is, and registration.
 * Many are Probot's (`probot: true`): Probot reads them from the
 * environment the launcher hands it, and the app checks them first.
 */
import type { SettingSection } from "./setting-row.js";

export const SERVER_SECTIONS = [
  {
    title: "The GitHub App",
    about:
      "The app's credentials, from its settings page (Settings > Developer settings > GitHub Apps > your app). Probot's setup page " +
      "(npm start without APP_ID) writes all three here for you. Once APP_ID is set, a wrong one ends the start with one line naming it.",
    rows: [
      { name: "APP_ID", type: "whole number", default: null, who: ["server", "cli"], probot: true, example: { set: "" },
        meaning: "The GitHub App's id. Unset: the server runs Probot's setup page to register the app, and /health answers 503." },
      { name: "PRIVATE_KEY", type: "secret", default: null, who: ["server", "cli"], probot: true, example: { set: "" },
        meaning: "The app's private key (PEM, newlines as \\n, or base64), or use PRIVATE_KEY_PATH." },
      { name: "PRIVATE_KEY_PATH", type: "path", default: null, who: ["server", "cli"], probot: true, example: "./private-key.pem",
        meaning: "The .pem file of the app's private key, when PRIVATE_KEY is not set." },
      { name: "WEBHOOK_SECRET", type: "secret", default: null, who: ["server"], probot: true, example: { set: "" },
        meaning:
          "The webhook secret; deliveries with a wrong signature are refused. Required: the app refuses to start when it is empty or a " +
          "known default (\"development\", \"secret\", \"test\") unless NODE_ENV=development. Generate one with `openssl rand -hex 32` and " +
          "set the same value in the GitHub App's settings." },
      { name: "NODE_ENV", type: "choice", default: null, who: ["server"], setBy: "platform",
        meaning:
          "Node's convention, not a setting of the app: `production` makes the log JSON by default and makes Probot refuse to start " +
          "without APP_ID; `development` (or `test`) allows a known default WEBHOOK_SECRET." },
    ],
  },
  {
    title: "The ledger",
    about: "Where the lease ledger lives: a SQLite file (one process), or PostgreSQL (for several replicas).",
    rows: [
      { name: "DATABASE_URL", type: "URL", default: "./data/leases.db", who: ["server", "cli"], example: "./data/leases.db",
        meaning:
          "A file path (SQLite; `sqlite:PATH` and `file:PATH` too) or a postgres://user:pass@host:5432/db URL (PostgreSQL). Left unset " +
          "in .env so that a deployment's own path holds: the systemd unit sets /var/lib/issue-leases/leases.db." },
      { name: "DATABASE_SCHEMA", type: "text", default: "public", who: ["server", "cli"], example: "issue_leases",
        meaning: "PostgreSQL only: the schema to use." },
      { name: "DATABASE_POOL_SIZE", type: "whole number", default: "10", who: ["server", "cli"], example: "10",
        meaning:
          "PostgreSQL only: connections in each process's pool, 1 to 1000. Each process holds two more of its own, so N replicas need " +
          "N x (size + 2) connections within the server's max_connections." },
    ],
  },
  {
    title: "HTTP",
    about:
      "The server: webhooks at WEBHOOK_PATH (signed deliveries to / are taken too), health at /health, the API at /api/v1/, " +
      "the board at /leases, MCP at /mcp.",
    rows: [
      { name: "PORT", type: "whole number", default: "3000", who: ["server"], probot: true, example: { set: "3000" },
        meaning: "The HTTP port." },
      { name: "HOST", type: "text", default: "localhost", who: ["server"], probot: true, example: "0.0.0.0",
        meaning: "The interface to listen on: 0.0.0.0 to listen beyond localhost." },
      { name: "WEBHOOK_PATH", type: "path", default: "/api/github/webhooks", who: ["server"], probot: true, example: "/api/github/webhooks",
        meaning: "Where GitHub's deliveries are taken, besides /." },
    ],
  },
  {
    title: "Logs",
    about: "The log, as Probot's own logger writes it, with request headers that carry credentials redacted.",
    rows: [
      { name: "LOG_LEVEL", type: "choice", default: "info", who: ["server"], probot: true, example: { set: "info" },
        meaning: "trace, debug, info, warn, error or fatal." },
      { name: "LOG_FORMAT", type: "choice", default: "pretty (json with NODE_ENV=production)", who: ["server"], probot: true, example: "json",
        meaning: "json, or pretty." },
      { name: "LOG_LEVEL_IN_STRING", type: "on/off", default: "false", who: ["server"], probot: true, example: "false",
        meaning: "true: each line's level as a word instead of a number." },
      { name: "LOG_MESSAGE_KEY", type: "text", default: "msg", who: ["server"], probot: true, example: "msg",
        meaning: "The key that holds each line's message." },
      { name: "SENTRY_DSN", type: "secret", default: null, who: ["server"], probot: true, example: "",
        meaning: "A Sentry DSN that errors are sent to." },
    ],
  },
  {
    title: "Where GitHub is",
    about: "github.com unless told. GitHub Enterprise Server has REST at https://HOST/api/v3 and GraphQL at https://HOST/api/graphql.",
    rows: [
      { name: "GHE_HOST", type: "text", default: null, who: ["server", "cli"], probot: true, example: "github.example.com",
        meaning: "GitHub Enterprise Server: its host name, without a scheme or a path." },
      { name: "GHE_PROTOCOL", type: "choice", default: "https", who: ["server", "cli"], probot: true, example: "https",
        meaning: "GitHub Enterprise Server: https, or http for a test server." },
      { name: "GITHUB_API_URL", type: "URL", default: "https://api.github.com", who: ["server", "cli"], example: "https://api.octocorp.ghe.com",
        meaning: "GitHub's API at another address in github.com's layout (GHE.com with data residency, a proxy): its REST base. Not together with GHE_HOST." },
      { name: "REDIS_URL", type: "URL", default: null, who: ["server"], probot: true, example: "",
        meaning: "Probot's: a Redis that the replicas' Octokit clients share their throttling through (its Bottleneck clustering)." },
    ],
  },
  {
    title: "Development and registration",
    about: "For `npm run dev` and Probot's setup page.",
    rows: [
      { name: "WEBHOOK_PROXY_URL", type: "URL", default: null, who: ["server"], probot: true, example: "https://smee.io/your-channel",
        meaning: "Forward webhooks from a smee.io channel. The setup page opens one and writes it here unless NO_SMEE_SETUP=true." },
      { name: "NO_SMEE_SETUP", type: "on/off", default: "false", who: ["server"], probot: true, example: "true",
        meaning: "true: the setup page opens no smee.io channel." },
      { name: "GH_ORG", type: "text", default: null, who: ["server"], probot: true, example: "your-org",
        meaning: "Registration only: create the app under this organisation instead of your account." },
    ],
  },
] as const satisfies readonly SettingSection[];
