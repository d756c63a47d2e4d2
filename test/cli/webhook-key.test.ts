/**
 * `issue-leases webhook-key`: the built CLI in a child process prints the key
 * that signs an installation's outgoing webhooks, from the
 * EVENTS_WEBHOOK_SECRET of its environment or ./.env: by installation id
 * without a database, or for a repository the ledger (a SQLite file) knows.
 * The key it prints verifies the app's signature (the `standardwebhooks`
 * package), and another installation's does not.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installationKey, signDelivery } from "../../src/events/sign.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { runBuiltCli } from "../support/cli-process.js";
import { ensureBuilt } from "../support/server-process.js";

const SECRET = "6f1d0c3a9b2e4f5a8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b";
const widgets = { repoId: 101, repo: "Octo-Org/Widgets", installation: 7 };

let dir: string;
let dbFile: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), "issue-leases-cli-webhook-key-"));
  dbFile = join(dir, "ledger.db");
  const ledger = new SqliteLedger(dbFile);
  await ledger.rememberRepo(widgets, Date.now());
  await ledger.close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs the CLI in the test's folder (no .env there unless a test writes one), with no secret unless given. */
const cli = (args: string[], env: Record<string, string> = {}) => runBuiltCli(args, dir, { EVENTS_WEBHOOK_SECRET: "", ...env });

/** Whether a delivery of installation `signedFor`, signed as the app signs it, verifies with `key`. */
function verifiesWith(key: string, signedFor: number): boolean {
  const id = "d2c4e6f8-0a1b-2c3d-4e5f-60718293a4b5";
  const body = '{"type":"lease.acquired"}';
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = { "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": signDelivery(installationKey(SECRET, signedFor), id, timestamp, body) };
  try {
    new Webhook(key).verify(body, headers);
    return true;
  } catch {
    return false;
  }
}

describe("issue-leases webhook-key", () => {
  it("--installation N prints that installation's key, whsec_…, which verifies its deliveries and not another's", async () => {
    const r = await cli(["webhook-key", "--installation", "7"], { EVENTS_WEBHOOK_SECRET: SECRET });
    expect(r).toMatchObject({ code: 0, stderr: "" });
    const key = r.stdout.trim();
    expect(r.stdout).toBe(`${key}\n`);
    expect(key).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(verifiesWith(key, 7)).toBe(true);
    expect(verifiesWith(key, 8)).toBe(false);
    const other = await cli(["webhook-key", "--installation", "8"], { EVENTS_WEBHOOK_SECRET: SECRET });
    expect(other.stdout.trim()).not.toBe(key);
    expect(verifiesWith(other.stdout.trim(), 8)).toBe(true);
  });

  it("owner/name prints the key of the installation serving it, reading the database", async () => {
    const r = await cli(["webhook-key", "octo-org/widgets"], { EVENTS_WEBHOOK_SECRET: SECRET, DATABASE_URL: dbFile });
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toBe((await cli(["webhook-key", "--installation", "7"], { EVENTS_WEBHOOK_SECRET: SECRET })).stdout);
    expect(verifiesWith(r.stdout.trim(), widgets.installation)).toBe(true);
  });

  it("reads EVENTS_WEBHOOK_SECRET from ./.env, as the app does", async () => {
    const here = await mkdtemp(join(tmpdir(), "issue-leases-cli-dotenv-"));
    try {
      await writeFile(join(here, ".env"), `EVENTS_WEBHOOK_SECRET=${SECRET}\n`);
      const { EVENTS_WEBHOOK_SECRET: _unset, ...env } = process.env;
      const r = await runBuiltCli(["webhook-key", "--installation", "7"], here, env as Record<string, string>);
      expect(r.code).toBe(0);
      expect(verifiesWith(r.stdout.trim(), 7)).toBe(true);
    } finally {
      await rm(here, { recursive: true, force: true });
    }
  });

  it("without EVENTS_WEBHOOK_SECRET says where it is read from, and exits 1", async () => {
    const r = await cli(["webhook-key", "--installation", "7"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      "issue-leases: EVENTS_WEBHOOK_SECRET is not set (in the environment or ./.env): the keys are derived from the app's secret, so run this where the app runs, with its settings\n",
    );
  });

  it("a repository the app has not seen exits 3", async () => {
    const r = await cli(["webhook-key", "octo-org/unknown"], { EVENTS_WEBHOOK_SECRET: SECRET, DATABASE_URL: dbFile });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^issue-leases: unknown repository octo-org\/unknown: /);
  });

  it.each([
    [[], "webhook-key needs a repository as owner/name, or --installation N"],
    [["octo-org/widgets", "--installation", "7"], "name a repository or --installation, not both"],
    [["--installation", "seven"], '--installation takes an installation\'s id, a whole number such as 12345678, not "seven"'],
    [["--installation", "0"], '--installation takes an installation\'s id, a whole number such as 12345678, not "0"'],
    [["octo-org"], 'not a repository: "octo-org"; write it as owner/name'],
    [["a/b", "c/d"], "unexpected argument c/d"],
  ])("%j is a usage error (exit 2) before anything is read", async (args, message) => {
    const r = await cli(["webhook-key", ...args], { EVENTS_WEBHOOK_SECRET: SECRET, DATABASE_URL: join(dir, "no-such.db") });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`issue-leases: ${message}`);
  });

  it("--help says what the key is for and how to give it", async () => {
    const r = await cli(["webhook-key", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: issue-leases webhook-key owner\/name\n {7}issue-leases webhook-key --installation N\n/);
    const text = r.stdout.replace(/\s+/g, " ");
    expect(text).toContain("Every repository of an installation (one organisation or account) has the same key");
    expect(text).toContain("Never give EVENTS_WEBHOOK_SECRET itself: every installation's key follows from it.");
  });
});
