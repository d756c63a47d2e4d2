/**
 * Which of the app's files one `/claim` passes through, from the webhook to
 * GitHub: the files of dist/src/ whose functions V8 counted as called while
 * one delivery was handled and its effects were applied to the fake GitHub
 * (the default GraphQL writes), after a first claim warmed the caches.
 *
 *   npm run build && node dist/scripts/claim-path.js [--list]
 *
 * A measure of how much of the app a newcomer follows to read a command
 * (issue 38's "files one /claim passes"), not a test.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { issueLeases, type Runtime } from "../src/app.js";
import { SqliteLedger } from "../src/ledger/sqlite/sqlite-ledger.js";
import { startFakeGitHub } from "../test/support/fake-github.js";
import { commentPayload } from "../test/support/payloads.js";
import { APP_ID, deliver, newProbot, serveWebhooks, signedDelivery } from "../bench/support/probot.js";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));

const fake = await startFakeGitHub();
const dir = mkdtempSync(join(tmpdir(), "issue-leases-claim-path-"));
const probot = newProbot(fake.baseUrl, { kind: "off" });
let runtime: Runtime | undefined;
await probot.load(
  issueLeases({
    ledger: new SqliteLedger(join(dir, "leases.db")),
    background: false,
    handleSignals: false,
    appId: APP_ID,
    budget: null,
    onReady: (r) => (runtime = r),
  }),
);
if (!runtime) throw new Error("issue-leases did not start");
const endpoint = await serveWebhooks(probot);
const claim = async (issue: number) => {
  const author = { login: `dev${issue}`, id: 7000 + issue, association: "COLLABORATOR" as const };
  await deliver(endpoint.url, await signedDelivery("issue_comment", commentPayload({ body: "/claim", author, issue })));
  await runtime!.drainer.drainAll();
};

// A first claim fills the caches (config, node ids, installation token): the second is a claim's steady state.
await claim(1);
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
await session.post("Profiler.takePreciseCoverage"); // resets the counts
await claim(2);
const { result } = await session.post("Profiler.takePreciseCoverage");
await session.post("Profiler.stopPreciseCoverage");
session.disconnect();

const files = result
  .filter((s) => s.url.startsWith("file://") && fileURLToPath(s.url).startsWith(SRC))
  .filter((s) => s.functions.some((f) => f.ranges.some((r) => r.count > 0)))
  .map((s) => fileURLToPath(s.url).slice(SRC.length))
  .sort();
if (!fake.requests.some((r) => r.method === "POST")) throw new Error("the claim wrote nothing to GitHub");
if (process.argv.includes("--list")) for (const f of files) console.log(f);
console.log(JSON.stringify({ files_one_claim_passes: files.length }));
await endpoint.close();
await runtime.shutdown();
await fake.close();
rmSync(dir, { recursive: true, force: true });
