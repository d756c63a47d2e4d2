import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // Tests run the client's sources, as they run the app's: a change to packages/client/src/ is tested
    // without building it first. Node resolves it to packages/client/dist/ (its package.json's exports),
    // which the compiled app and CLI use and test/client/package-tarball.test.ts checks.
    alias: { "@issue-leases/client": fileURLToPath(new URL("./packages/client/src/index.ts", import.meta.url)) },
  },
  test: {
    include: ["test/**/*.test.ts"],
    // Ledger tests fsync real files and spawn processes; the machine is shared.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
