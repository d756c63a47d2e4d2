/**
 * The maintainer's first hour, on the real start-up (`npm start`'s launcher
 * and `probot run` in child processes): where Probot's setup page points
 * GitHub's deliveries, and what a wrong variable prints.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { sign } from "@octokit/webhooks-methods";
import { describe, expect, it } from "vitest";
import { alice, commentPayload } from "../support/payloads.js";
import { ensureBuilt, freePort, LAUNCHER, privateKey, ROOT, startSetupServer, waitFor, WEBHOOK_SECRET } from "../support/server-process.js";
import { labels, replies, tempDir } from "./issue-view.js";
import { withLiveApp } from "./live-app.js";

/** Runs a start-up that must fail; resolves to its exit code and what it wrote. */
async function failedStart(env: Record<string, string>, argv = [LAUNCHER]): Promise<{ code: number | null; stderr: string; stdout: string }> {
  await ensureBuilt();
  const child = spawn(process.execPath, argv, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LOG_FORMAT: "json", HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const code = await new Promise<number | null>((done) => child.once("exit", (c) => done(c)));
  clearTimeout(timer);
  return { code, stderr, stdout };
}

/** A registered app's environment with one variable wrong. */
async function registered(env: Record<string, string>): Promise<Record<string, string>> {
  return {
    APP_ID: "1",
    PRIVATE_KEY: privateKey(),
    WEBHOOK_SECRET,
    DATABASE_URL: tempDir().db,
    PORT: String(await freePort()),
    ...env,
  };
}

function expectOneLine(run: { code: number | null; stderr: string; stdout: string }, names: RegExp): void {
  expect(run.code).toBe(1);
  const lines = run.stderr.trim().split("\n");
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(names);
  // No stack anywhere, nor a setup page being served.
  expect(run.stderr + run.stdout).not.toMatch(/^\s{4}at /m);
  expect(run.stdout).not.toMatch(/setup mode/i);
}

async function post(url: string, payload: unknown, signed: boolean): Promise<number> {
  const body = JSON.stringify(payload);
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": "issue_comment",
      "x-github-delivery": randomUUID(),
      ...(signed ? { "x-hub-signature-256": await sign(WEBHOOK_SECRET, body) } : {}),
    },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

describe.concurrent("Registering and receiving", () => {
  it("the webhook URL Probot's setup page registers is served: a signed delivery is handled, an unsigned one refused", async () => {
    // The manifest the setup page would POST to GitHub, from Probot itself.
    const setup = await startSetupServer();
    let hook: URL;
    try {
      const html = await (await fetch(`${setup.url}/probot`)).text();
      const manifest = JSON.parse(/name="manifest" id="manifest" value='([^']*)'/.exec(html)![1]!) as { hook_attributes: { url: string } };
      hook = new URL(manifest.hook_attributes.url);
      expect(hook.origin).toBe(setup.url);
    } finally {
      await setup.stop();
    }

    await withLiveApp(async (live) => {
      const server = await live.start();
      const at = new URL(hook.pathname, server.url).href;
      expect(await post(at, commentPayload({ body: "/claim", author: alice }), false)).toBe(400);
      expect(await post(at, commentPayload({ body: "/claim", author: alice }), true)).toBe(200);
      await waitFor("alice's lease, from the delivery at the registered URL", () => replies(live.fake, 1).length === 1 && labels(live.fake, 1).length === 3);
      expect(replies(live.fake, 1)[0]).toMatchObject({ outcome: "acquired", token: 1, holder: "alice" });
      // GET / still leads to Probot's page, not to the webhook middleware.
      const root = await fetch(`${server.url}/`, { redirect: "manual" });
      expect(root.status).toBe(302);
      // The start-up line names the app, the database file and its schema version.
      const ready = server.stdout().split("\n").find((l) => l.includes("issue-leases ready"));
      expect(JSON.parse(ready!)).toMatchObject({ app_id: 1, database: `SQLite ${live.dbFile}`, schema_version: expect.any(Number) });
    });
  }, 90_000);
});

describe("Before the app is registered (setup mode)", () => {
  it("/health answers 503 saying the app is not registered yet, and the setup page is still served", async () => {
    const setup = await startSetupServer();
    try {
      const res = await fetch(`${setup.url}/health`);
      expect(res.status).toBe(503);
      expect(res.headers.get("content-type")).toBe("application/json");
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ status: "setup", registered: false });
      expect(body["message"]).toMatch(/not registered yet.*APP_ID/);
      // Probot's pages as before: / leads to the registration page, which answers, and other paths are 404.
      const root = await fetch(`${setup.url}/`, { redirect: "manual" });
      expect([root.status, root.headers.get("location")]).toEqual([302, "/probot"]);
      expect((await fetch(`${setup.url}/probot`)).status).toBe(200);
      expect((await fetch(`${setup.url}/nothing-here`)).status).toBe(404);
      expect(setup.stdout()).toMatch(/setup mode/i);
    } finally {
      await setup.stop();
    }
  }, 60_000);
});

describe.concurrent("A wrong variable ends the start-up with one line naming it", () => {
  it("a PRIVATE_KEY that is not a key: no stack, no setup page", async () => {
    expectOneLine(await failedStart(await registered({ PRIVATE_KEY: "garbage" })), /PRIVATE_KEY is not a readable private key/);
  }, 60_000);

  it("APP_ID set without any key", async () => {
    expectOneLine(await failedStart(await registered({ PRIVATE_KEY: "" })), /APP_ID is set but neither PRIVATE_KEY nor PRIVATE_KEY_PATH/);
  }, 60_000);

  it("an API_RATE_LIMIT that is not a number", async () => {
    expectOneLine(await failedStart(await registered({ API_RATE_LIMIT: "lots" })), /API_RATE_LIMIT must be a number of requests/);
  }, 60_000);

  it("a DATABASE_URL whose folder cannot be created", async () => {
    expectOneLine(await failedStart(await registered({ DATABASE_URL: "/dev/null/x/leases.db" })), /cannot open database at \/dev\/null\/x\/leases\.db.*DATABASE_URL/);
  }, 60_000);

  it("a DATABASE_URL with a scheme issue-leases does not support creates no file", async () => {
    const run = await failedStart(await registered({ DATABASE_URL: "mysql://u:p@localhost/leases" }));
    expectOneLine(run, /DATABASE_URL uses mysql:\/\//);
    expect(run.stderr).not.toContain("u:p");
    expect(existsSync(join(ROOT, "mysql:"))).toBe(false);
  }, 60_000);

  it("PostgreSQL not answering", async () => {
    const port = await freePort(); // nothing listens there
    const run = await failedStart(await registered({ DATABASE_URL: `postgres://u:secret@127.0.0.1:${port}/leases` }));
    expectOneLine(run, new RegExp(`cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port}/leases.*DATABASE_URL`));
    expect(run.stderr).not.toContain("secret");
  }, 60_000);

  it("a PORT another process listens on", async () => {
    const taken = createServer();
    const port = await new Promise<number>((done) => taken.listen(0, "127.0.0.1", () => done((taken.address() as { port: number }).port)));
    try {
      expectOneLine(await failedStart(await registered({ PORT: String(port) })), new RegExp(`PORT ${port} is already in use`));
    } finally {
      taken.close();
    }
  }, 60_000);
});

describe.concurrent("The raw Probot entry", () => {
  it("`probot run ./dist/src/index.js`, whose logs would carry request headers unredacted, is refused with one line naming npm start", async () => {
    const probotRun = [join(ROOT, "node_modules/probot/bin/probot.js"), "run", "./dist/src/index.js"];
    const port = await freePort();
    const env = await registered({ PORT: String(port) });
    const run = await failedStart(env, probotRun);
    expectOneLine(run, /would write request headers, tokens and cookies included, to the logs: start the app with `npm start`/);
    // Refused before anything listens or opens the database.
    expect(existsSync(env.DATABASE_URL!)).toBe(false);
    expect(run.stdout).not.toContain(`Listening on`);
  }, 60_000);
});
