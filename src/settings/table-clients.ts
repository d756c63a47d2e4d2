/**
 * The table's rows that are not the server's: the agents' commands'
 * variables (read from their own environment, never from `.env`), what
 * `agent run` gives the command it runs, and the GitHub Actions runner's
 * protocol that the Action's steps read (action.yml documents the inputs).
 * None belongs in a server's `.env`: only the agents' appear in
 * `.env.example`, commented, for reference.
 */
import type { SettingSection } from "./setting-row.js";

export const CLIENT_SECTIONS = [
  {
    title: "Agents",
    about:
      "Not read from .env: the client commands for agents (`issue-leases agent …`, `issue-leases mcp`) read these from their own " +
      "environment, never from .env.",
    rows: [
      { name: "ISSUE_LEASES_URL", type: "URL", default: null, who: ["agent"], example: "https://leases.example.com",
        meaning: "The app's URL." },
      { name: "GH_TOKEN", type: "secret", default: null, who: ["agent"], example: "",
        meaning: "The agent's GitHub token; the lease is held by its account. Read before GITHUB_TOKEN, as `gh` does." },
      { name: "GITHUB_TOKEN", type: "secret", default: null, who: ["agent"], example: "",
        meaning: "The agent's GitHub token, when GH_TOKEN is not set." },
      { name: "ISSUE_LEASES_ALLOW_HTTP", type: "on/off", default: null, who: ["agent"], example: "1",
        meaning: "1 (or true): allow http:// to another machine (the token goes in clear)." },
      { name: "ISSUE_LEASES_DEBUG", type: "on/off", default: null, who: ["agent"], example: "1",
        meaning: "1 (or true): `agent run` says why it fell back (README, \"agent run\")." },
    ],
  },
  {
    title: "Given by `agent run`",
    about: "What `issue-leases agent run` adds to the environment of the command it runs; `agent verify` reads them back (README, \"agent run\").",
    rows: [
      { name: "ISSUE_LEASES_TOKEN", type: "whole number", default: null, who: ["agent"], setBy: "agent run",
        meaning: "The fencing token of the lease (put it in a pull request as `Lease-Token: N`)." },
      { name: "ISSUE_LEASES_REF", type: "text", default: null, who: ["agent"], setBy: "agent run",
        meaning: "The issue, as owner/repo#N." },
      { name: "ISSUE_LEASES_ISSUE", type: "whole number", default: null, who: ["agent"], setBy: "agent run",
        meaning: "The issue's number." },
      { name: "ISSUE_LEASES_INSTANCE", type: "text", default: null, who: ["agent"], setBy: "agent run",
        meaning: "The holder's instance, when `agent run` was given one." },
    ],
  },
  {
    title: "The Actions runner",
    about: "What the GitHub Actions runner gives the Action's steps (action/runner.ts); the inputs are documented in action.yml.",
    rows: [
      { name: "INPUT_<NAME>", type: "text", default: null, who: ["action"], setBy: "runner",
        meaning: "Each input of action.yml, named after it in upper case (`allow-http` is INPUT_ALLOW-HTTP)." },
      { name: "STATE_<NAME>", type: "text", default: null, who: ["action"], setBy: "runner",
        meaning: "What the main step saved for the post step." },
      { name: "GITHUB_OUTPUT", type: "path", default: null, who: ["action"], setBy: "runner",
        meaning: "The file the step's outputs are appended to." },
      { name: "GITHUB_STATE", type: "path", default: null, who: ["action"], setBy: "runner",
        meaning: "The file the main step's state is appended to." },
      { name: "GITHUB_REPOSITORY", type: "text", default: null, who: ["action"], setBy: "runner",
        meaning: "The workflow's repository, owner/repo: the issue's when the input names only a number." },
      { name: "GITHUB_EVENT_PATH", type: "path", default: null, who: ["action"], setBy: "runner",
        meaning: "The event that started the workflow: the issue when no input names one." },
      { name: "GITHUB_EVENT_NAME", type: "text", default: null, who: ["action"], setBy: "runner",
        meaning: "The event's name, for the message when it carries no issue." },
      { name: "GITHUB_RUN_ID", type: "text", default: null, who: ["action"], setBy: "runner",
        meaning: "Part of the default instance (one per run attempt, job and step)." },
      { name: "GITHUB_RUN_ATTEMPT", type: "text", default: null, who: ["action"], setBy: "runner",
        meaning: "Part of the default instance." },
      { name: "GITHUB_JOB", type: "text", default: null, who: ["action"], setBy: "runner",
        meaning: "Part of the default instance." },
      { name: "RUNNER_NAME", type: "text", default: null, who: ["action"], setBy: "runner",
        meaning: "Part of the default instance." },
      { name: "GITHUB_ACTION", type: "text", default: null, who: ["action"], setBy: "runner",
        meaning: "Part of the default instance." },
    ],
  },
] as const satisfies readonly SettingSection[];
