/**
 * The container image as an operator runs it: the Dockerfile built with
 * podman, the app run in it (`npm start`, as uid 10001) against the fake
 * GitHub on the host's network, the SQLite ledger on a named volume that
 * outlives the container.
 *
 * Skipped, saying why, where podman is not installed; under CI (CI set, as
 * .ci/run runs) a missing podman is a failure: .ci/run installs it.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { sign } from "@octokit/webhooks-methods";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { FULL, labels, leaseLabels, replies } from "../e2e/issue-view.js";
import { type FakeGitHub, startFakeGitHub } from "../support/fake-github.js";
import { alice, bob, commentPayload, type UserSpec } from "../support/payloads.js";
import { freshSchema, skipPostgres, TEST_DATABASE_URL } from "../support/pg-schema.js";
import { freePort, privateKey, waitFor } from "../support/server-process.js";
import { type AppContainer, buildImage, ensureBaseImage, hasPodman, NODE_IMAGE, podman, remove, runApp } from "./podman.js";

const inCI = Boolean(process.env.CI) && process.env.CI !== "false" && process.env.CI !== "0";
const missing = hasPodman ? undefined : "podman is not installed (apt-get install podman runc debootstrap; under CI=true this is a failure)";

const run = randomBytes(4).toString("hex");
/** The image under test: built here, or, under .ci/run, built before the suite (CONTAINER_TEST_IMAGE) so that its build does not share the machine with the other tests. */
const PREBUILT = process.env.CONTAINER_TEST_IMAGE;
const IMAGE = PREBUILT ?? `localhost/issue-leases-test:${run}`;
const made = { containers: [] as string[], volumes: [] as string[], images: [] as string[] };
const SECRET = "container-test-secret";
const fakes: FakeGitHub[] = [];

beforeAll(async () => {
  if (missing && inCI) throw new Error("CI is set and podman is not installed: .ci/run installs podman, runc and debootstrap");
  if (missing) {
    console.warn(`the container image is not tested: ${missing}`);
    return;
  }
  if (PREBUILT) {
    // Built by .ci/run from this checkout; a missing image is a failure, not a rebuild.
    await podman(["image", "exists", PREBUILT]);
    return;
  }
  const started = Date.now();
  const base = await ensureBaseImage();
  const baseSeconds = Math.round((Date.now() - started) / 1000);
  made.images.push(IMAGE);
  await buildImage(IMAGE);
  console.log(`container test: base image ${NODE_IMAGE} ${base} (${baseSeconds} s), image built in ${Math.round((Date.now() - started) / 1000) - baseSeconds} s`);
}, 60 * 60_000);

afterAll(async () => {
  await remove(made);
  await Promise.all(fakes.map((fake) => fake.close()));
}, 120_000);

async function fakeGitHub(): Promise<FakeGitHub> {
  const fake = await startFakeGitHub();
  fakes.push(fake);
  return fake;
}

/** The app's environment, as an operator gives it: a test App of the fake GitHub, reached as GitHub Enterprise Server. */
function appEnv(fake: FakeGitHub, extra: Record<string, string> = {}): Record<string, string> {
  return { APP_ID: "1", PRIVATE_KEY: privateKey(), WEBHOOK_SECRET: SECRET, ...fake.appEnv(), LOG_LEVEL: "info", ...extra };
}

async function volume(): Promise<string> {
  const name = `issue-leases-test-${run}-${made.volumes.length}`;
  made.volumes.push(name);
  await podman(["volume", "create", name]);
  return name;
}

const started: AppContainer[] = [];

async function start(volumeName: string | undefined, env: Record<string, string>): Promise<AppContainer> {
  const name = `issue-leases-test-${run}-${made.containers.length}`;
  made.containers.push(name);
  const app = await runApp(IMAGE, { name, port: await freePort(), volume: volumeName, env });
  started.push(app);
  return app;
}

/** When a test fails, what its containers logged. */
function showLogsOnFailure(ctx: TestContext): void {
  started.length = 0;
  ctx.onTestFailed(async () => {
    for (const app of started) console.log(`--- ${app.name}:\n${await app.logs()}`);
  });
}

/** A comment delivered as GitHub delivers it: signed with the webhook secret. Resolves to the HTTP status. */
async function deliverComment(app: AppContainer, body: string, author: UserSpec): Promise<number> {
  const payload = JSON.stringify(commentPayload({ body, author }));
  const res = await fetch(`${app.url}/api/github/webhooks`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": "issue_comment",
      "x-github-delivery": randomUUID(),
      "x-hub-signature-256": await sign(SECRET, payload),
    },
    body: payload,
  });
  await res.arrayBuffer();
  return res.status;
}

describe("the container image", () => {
  it("runs npm start as uid 10001 with production dependencies only, a HEALTHCHECK on /health and /data a volume", async (ctx) => {
    if (missing) ctx.skip(missing);
    const [config] = JSON.parse(await podman(["image", "inspect", IMAGE])) as Array<{ Config: Record<string, any>; Healthcheck?: { Test: string[] } }>;
    expect(config!.Config.User).toBe("10001:10001");
    expect(config!.Config.Cmd).toEqual(["npm", "start"]);
    expect(Object.keys(config!.Config.Volumes)).toEqual(["/data"]);
    expect(config!.Config.Env).toContain("DATABASE_URL=/data/leases.db");
    expect(config!.Healthcheck?.Test.join(" ")).toMatch(/^CMD node -e fetch\(.*\/health`\)/);

    const inside = JSON.parse(
      await podman([
        "run", "--rm", "--network", "host", IMAGE, "node", "-e",
        `const fs = require("node:fs");
         const db = new (require("better-sqlite3"))(":memory:");
         console.log(JSON.stringify({
           uid: process.getuid(),
           app: fs.readdirSync("/app").sort(),
           client: fs.readdirSync("/app/packages/client").sort(),
           typescript: fs.existsSync("/app/node_modules/typescript"),
           sqlite: db.prepare("select sqlite_version() as v").get().v,
         }));`,
      ]),
    ) as { uid: number; app: string[]; client: string[]; typescript: boolean; sqlite: string };
    expect(inside.uid).toBe(10001);
    // The compiled app and what runs it: no sources, tests, .env or key.
    expect(inside.app).toEqual(["app.yml", "bin", "dist", "node_modules", "package-lock.json", "package.json", "packages", "scripts"]);
    // The client package the app imports by its name: its build, not its sources.
    expect(inside.client).toEqual(["dist", "package.json"]);
    expect(inside.typescript).toBe(false);
    // better-sqlite3's native addon was built for this base.
    expect(inside.sqlite).toMatch(/^3\.\d+\.\d+$/);
  });

  it("answers a signed delivery, is healthy, and its ledger on the volume outlives the container, tokens and all", async (ctx) => {
    if (missing) ctx.skip(missing);
    showLogsOnFailure(ctx);
    const fake = await fakeGitHub();
    const data = await volume();
    const first = await start(data, appEnv(fake));
    expect(await first.exec(["id", "-u"])).toBe("10001");

    expect(await deliverComment(first, "/claim", alice)).toBe(200);
    await waitFor("alice's lease on the fake GitHub", () => replies(fake, 1).length === 1 && labels(fake, 1).length === 3, 60_000);
    expect(replies(fake, 1)[0]).toMatchObject({ op: "claim", outcome: "acquired", holder: "alice", token: 1 });
    expect(labels(fake, 1)).toEqual(leaseLabels("alice", 1));
    expect(fake.assignees(FULL, 1)).toEqual(["alice"]);

    const health = await fetch(`${first.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: "ok", database: true });
    // The image's own HEALTHCHECK, as the engine runs it.
    expect(await podman(["healthcheck", "run", first.name])).toBe("");
    // The ledger is the app user's, readable by it alone.
    expect(await first.exec(["stat", "--format", "%u %a", "/data/leases.db"])).toBe("10001 600");

    // SIGTERM reaches node through npm: the app finishes its work and exits 0 rather than being killed.
    expect(await first.stop()).toBe(0);
    expect(await first.logs()).toContain("shutting down: finishing the transaction and the effect in flight");

    // A new container on the same volume (an upgrade, a reschedule) has the lease and its token.
    const second = await start(data, appEnv(fake));
    const listed = JSON.parse(await second.exec(["issue-leases", "list", "--json"])) as Array<Record<string, unknown>>;
    expect(listed).toEqual([expect.objectContaining({ repo: FULL, issue: 1, holder: expect.objectContaining({ login: "alice" }), token: 1 })]);
    expect(await deliverComment(second, "/claim", bob)).toBe(200);
    await waitFor("the reply to bob", () => replies(fake, 1).length === 2, 60_000);
    expect(replies(fake, 1)[1]).toMatchObject({ op: "claim", outcome: "held", holder: "alice", token: 1 });
    expect(fake.unmatched).toEqual([]);
    expect(await second.stop()).toBe(0);
  }, 300_000);

  it.skipIf(skipPostgres)("runs on PostgreSQL, as compose.yaml has it", async (ctx) => {
    if (missing) ctx.skip(missing);
    showLogsOnFailure(ctx);
    const fake = await fakeGitHub();
    const db = await freshSchema();
    try {
      const app = await start(undefined, appEnv(fake, { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: db.schema }));
      const { hostname, port, pathname } = new URL(TEST_DATABASE_URL);
      const ready = `"database":"PostgreSQL ${hostname}:${port || "5432"}${pathname} schema ${db.schema}"`;
      await waitFor("the ready line naming the database", async () => (await app.logs()).includes(ready));
      expect(await deliverComment(app, "/claim", alice)).toBe(200);
      await waitFor("alice's lease on the fake GitHub", () => replies(fake, 1).length === 1, 60_000);
      expect(replies(fake, 1)[0]).toMatchObject({ op: "claim", outcome: "acquired", holder: "alice", token: 1 });
      expect(await app.stop()).toBe(0);
    } finally {
      await db.drop();
    }
  }, 300_000);
});
