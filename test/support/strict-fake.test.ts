/**
 * The strict-fake hook (strict-fake.ts) fails a test that leaves a request
 * the fake GitHub did not serve, and only that test: run on a fixture, in a
 * vitest of its own.
 */
import { execFile } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ROOT } from "./server-process.js";

describe("the strict fake", () => {
  it("fails the test that sent a request GitHub would not serve, naming it, and passes the one that took its own", async () => {
    const { code, out } = await new Promise<{ code: number | null; out: string }>((resolve) =>
      execFile(
        process.execPath,
        ["node_modules/vitest/vitest.mjs", "run", "--config", "test/support/fixtures/strict-fake.vitest.config.ts", "--reporter=verbose"],
        { cwd: ROOT, env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" } },
        (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: `${stdout}\n${stderr}` }),
      ),
    );
    expect(code).toBe(1);
    expect(out).toMatch(/×.*sends GraphQL where Enterprise Server does not serve it/);
    expect(out).toMatch(/✓.*sends one on purpose and takes it/);
    expect(out).toContain("the fake GitHub served no such thing: POST /api/v3/graphql (404, enterprise layout)");
    expect(out).toMatch(/1 failed \| 1 passed/);
  }, 60_000);
});
