/**
 * The help texts say what the CLI does: the top-level help's lines are
 * whole, and `issue-leases agent run --json` prints one JSON line per event
 * on stderr, the events its help names (no more, no fewer), which the manual
 * (docs/bots-and-agents/agent-cli.md) names too. The built CLI runs against a stub API whose answers lead
 * through every event.
 */
import { execFile, execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ApiStub, leaseJson, type StubAnswer, type StubRequest, startApiStub } from "../client/api-stub.js";
import { BUILT_CLI, ROOT } from "../support/cli-process.js";

const bot = { login: "deploy-bot[bot]", id: 41898282 };
const alice = { login: "alice", id: 11 };

let stub: ApiStub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

beforeAll(() => {
  execFileSync(process.execPath, ["scripts/build-if-needed.mjs"], { cwd: ROOT, stdio: "pipe" });
});

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [BUILT_CLI, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? "", GITHUB_TOKEN: "ghp_test", ...env } }, (error, stdout, stderr) =>
      done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** `agent run --json` against an API answering renewals and the release as given; the events it printed. */
async function runEvents(command: string[], answers: { renew?: (n: number) => StubAnswer; release?: StubAnswer }): Promise<string[]> {
  let renewals = 0;
  const until = () => new Date(Date.now() + 3000).toISOString();
  stub = await startApiStub((req: StubRequest) => {
    if (req.method === "POST") return { status: 200, json: leaseJson("acquired", bot, 5, until()) };
    if (req.method === "PATCH") return answers.renew?.(renewals++) ?? { status: 200, json: leaseJson("renewed", bot, 5, until()) };
    return answers.release ?? { status: 200, json: leaseJson("released", bot, 5, until()) };
  });
  const r = await cli(["agent", "run", "octo-org/widgets#12", "--ttl", "3s", "--grace", "1s", "--json", "--", ...command], { ISSUE_LEASES_URL: stub.url });
  const events = r.stderr
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { event: string; issue: string });
  for (const e of events) expect(e.issue).toBe("octo-org/widgets#12");
  await stub.close();
  stub = undefined;
  return events.map((e) => e.event);
}

/** The events `agent run --help` lists under --json. */
async function helpEvents(): Promise<string[]> {
  const help = (await cli(["agent", "run", "--help"])).stdout;
  const block = /^ {2}--json .*\n((?: {23}\S.*\n)+)/m.exec(help);
  expect(block, help).not.toBeNull();
  return block![1]!.trimEnd().split("\n").map((line) => line.trim().split(/\s+/)[0]!);
}

describe("agent run --json", () => {
  it("prints exactly the events its help names", async () => {
    const emitted = new Set<string>();
    const add = (events: string[]) => events.forEach((e) => emitted.add(e));

    // The command runs and exits; the release is refused.
    const ran = await runEvents(["true"], { release: { status: 422, json: { error: { code: "invalid", message: "no" } } } });
    expect(ran).toEqual(["acquired", "exited", "release_failed"]);
    add(ran);
    // The command cannot be run.
    const missing = await runEvents(["./no-such-agent.sh"], {});
    expect(missing).toEqual(["acquired", "not_started"]);
    add(missing);
    // A renewal fails (retried), the next finds someone else holding the issue.
    const lost = await runEvents(["sh", "-c", "while :; do sleep 0.1; done"], {
      renew: (n) => (n === 0 ? { status: 401, json: { error: { code: "unauthorized", message: "bad token" } } } : { status: 409, json: leaseJson("not_holder", alice, 6, null) }),
    });
    expect(lost).toEqual(["acquired", "renew_failed", "lost"]);
    add(lost);

    const listed = await helpEvents();
    expect([...emitted].sort()).toEqual([...listed].sort());

    // The manual's account of --json names the same events.
    const manual = readFileSync(join(ROOT, "docs/bots-and-agents/agent-cli.md"), "utf8");
    const sentence = /`--json` prints what happens\s+([^.]*)\bas JSON lines on stderr/.exec(manual);
    expect(sentence, "the manual's --json sentence").not.toBeNull();
    expect([...sentence![1]!.matchAll(/`(\w+)`/g)].map((m) => m[1]).sort()).toEqual([...listed].sort());
  }, 60_000);
});

describe("issue-leases --help", () => {
  it("says where each command's help is, in a whole sentence", async () => {
    const help = (await cli(["--help"])).stdout;
    expect(help).toMatch(/^ {2}-h, --help {6}this help, or a command's own: `issue-leases <command> --help`$/m);
    // No option's description stops at a dangling "a command's".
    expect(help).not.toMatch(/ for a command's$/m);
  });
});
