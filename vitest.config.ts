import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/** The process tests whose app writes to GitHub: a crash, a fault or a count on the way. */
const E2E_ON_BOTH_PATHS = [
  "agent", "agent-events", "backup-restore", "events-restarts", "faults", "metrics",
  "pg-faults", "pg-restarts", "replicas", "restarts", "server",
];

export default defineConfig({
  resolve: {
    // Tests run the client's sources, as they run the app's: a change to packages/client/src/ is tested
    // without building it first. Node resolves it to packages/client/dist/ (its package.json's exports),
    // which the compiled app and CLI use and test/client/package-tarball.test.ts checks.
    alias: { "@issue-leases/client": fileURLToPath(new URL("./packages/client/src/index.ts", import.meta.url)) },
  },
  test: {
    // Ledger tests fsync real files and spawn processes; the machine is shared.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // A request the fake GitHub does not serve fails the test that sent it.
    setupFiles: ["test/support/strict-fake.ts"],
    projects: [
      { extends: true, test: { name: "all", include: ["test/**/*.test.ts"] } },
      // The app's processes write to GitHub on GITHUB_WRITES=graphql by default, and the process tests
      // run on REST above (test/e2e/live-app.ts): these run them again on the GraphQL path. In-process
      // tests of the outbox, the labels and the budget run both paths themselves.
      {
        extends: true,
        test: {
          name: "e2e-graphql",
          include: E2E_ON_BOTH_PATHS.map((name) => `test/e2e/${name}.test.ts`),
          env: { E2E_GITHUB_WRITES: "graphql" },
        },
      },
      // The fake serves Enterprise Server's layout unless told (REST under /api/v3, GraphQL at /api/graphql):
      // the whole-path tests run again against github.com's (REST at the root, GraphQL at /graphql), writing on
      // GraphQL as the app does by default.
      {
        extends: true,
        test: {
          name: "github.com-layout",
          include: ["test/e2e/*.test.ts", "test/api/*.test.ts", "test/mcp/*.test.ts", "test/outbox/graphql-writes.test.ts", "test/outbox/both-paths.test.ts"],
          env: { FAKE_GITHUB_LAYOUT: "github.com", E2E_GITHUB_WRITES: "graphql" },
        },
      },
    ],
  },
});
