/**
 * The site's sidebar: the manual's pages by reader, each as its Markdown
 * path from the repository's root and the title it goes by. Every page of
 * the site is in it once (test/docs/site.test.ts checks), so a new page is
 * added here.
 */
export interface NavGroup {
  text: string;
  pages: ReadonlyArray<readonly [path: string, title: string]>;
}

export const SITE_NAV: readonly NavGroup[] = [
  {
    text: "issue-leases",
    pages: [
      ["README.md", "What it is, and the quick start"],
      ["docs/README.md", "The manual, by reader"],
    ],
  },
  {
    text: "Contributors",
    pages: [
      ["docs/contributors/commands.md", "Commands"],
      ["docs/contributors/replies-and-labels.md", "Replies and labels"],
      ["docs/contributors/wait-list.md", "The wait list"],
      ["docs/contributors/lease-lifetime.md", "How long a lease lasts"],
    ],
  },
  {
    text: "Maintainers",
    pages: [
      ["docs/maintainers/install.md", "Install"],
      ["docs/maintainers/config.md", "Configuration"],
      ["docs/maintainers/policies.md", "Policies"],
      ["docs/maintainers/switching.md", "Switching from another bot"],
      ["docs/maintainers/board.md", "The board"],
      ["docs/maintainers/checks.md", "The checks"],
    ],
  },
  {
    text: "Bot and agent authors",
    pages: [
      ["docs/bots-and-agents/http-api.md", "The HTTP API"],
      ["docs/bots-and-agents/client.md", "The client"],
      ["packages/client/README.md", "The client package's README"],
      ["docs/bots-and-agents/agent-cli.md", "Shell agents: issue-leases agent"],
      ["docs/bots-and-agents/work-queues.md", "Work queues"],
      ["docs/bots-and-agents/action.md", "The GitHub Action"],
      ["docs/bots-and-agents/mcp.md", "The MCP server"],
      ["docs/bots-and-agents/fencing.md", "Fencing tokens"],
      ["docs/bots-and-agents/events.md", "Lease events"],
    ],
  },
  {
    text: "Operators",
    pages: [
      ["docs/operators/deploy.md", "Deploy"],
      ["docs/postgresql.md", "PostgreSQL and replicas"],
      ["docs/operators/health-and-metrics.md", "Health and metrics"],
      ["docs/operators/operator-cli.md", "The operator CLI"],
      ["docs/operators/backup-and-upgrades.md", "Backup, restore and upgrades"],
      ["docs/operators/github-limits.md", "GitHub's limits"],
      ["docs/operators/outgoing-webhooks.md", "Outgoing webhooks"],
      ["SECURITY.md", "Security"],
    ],
  },
  {
    text: "Reference",
    pages: [
      ["docs/reference/config.md", "Configuration keys"],
      ["docs/reference/environment.md", "Environment variables"],
      ["docs/examples.md", "Commands and replies"],
      ["docs/reference/cli.md", "CLI"],
      ["docs/reference/api.md", "HTTP API"],
      ["docs/reference/metrics.md", "Metrics"],
    ],
  },
  {
    text: "How it works inside",
    pages: [
      ["docs/outbox.md", "The outbox"],
      ["docs/design-choices.md", "Design choices"],
      ["docs/benchmarks.md", "Benchmarks"],
      ["docs/layout.md", "Layout"],
      ["CONTRIBUTING.md", "Contributing"],
      ["CHANGELOG.md", "Changelog"],
    ],
  },
];
