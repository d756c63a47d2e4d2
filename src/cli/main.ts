#!/usr/bin/env node
/**
 * `issue-leases`, the operator CLI (run through the package's bin,
 * bin/issue-leases.mjs): list leases, show an issue's history, force-release
 * a lease, check, back up and restore the database, and check a config file
 * before it is committed (`src/cli/run-cli.ts`);
 * and the client commands for agents, `issue-leases agent …`
 * (`src/cli/agent-cli.ts`).
 */
import { applyDotenv } from "./apply-dotenv.js";

// `issue-leases list | head` closes the pipe early: that is not an error.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(0);
  throw err;
});

// Into process.env itself (the commands' io.env), as Probot does: DATABASE_*, APP_ID and where GitHub is are read from there.
// Not for the client commands (`agent …`, `mcp`): they talk to the API, and the
// app's .env (its own GitHub settings) is none of an agent's business. Nor for
// `check-config`, run in a repository of the maintainer's, whose .env is not the app's.
try {
  if (process.argv[2] !== "agent" && process.argv[2] !== "mcp" && process.argv[2] !== "check-config") applyDotenv(process.env, process.cwd());
} catch (err) {
  process.stderr.write(`issue-leases: cannot read .env (${err instanceof Error ? err.message : String(err)})\n`);
  process.exit(1);
}

/** A file piped in (`import-config < triagebot.toml`); a terminal is not read: the command would wait for nothing. */
async function readStdin(maxBytes: number): Promise<string | null> {
  if (process.stdin.isTTY) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new Error(`standard input is over ${Math.round(maxBytes / 1024)} KiB: no claim bot's config is that big`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

const io = {
  out: (text: string) => process.stdout.write(`${text}\n`),
  err: (text: string) => process.stderr.write(`${text}\n`),
  clock: Date.now,
  env: process.env,
  readStdin,
};
// `mcp` is started by an agent's host for every session: it loads the MCP server alone, not every command's modules
// (the database drivers, Probot's Octokit), which take a second to load. Its standard output is the protocol's only.
if (process.argv[2] === "mcp") {
  const [{ runMcpCli }, { packageVersion }] = await Promise.all([import("./mcp-cli.js"), import("../mcp/package-version.js")]);
  process.exitCode = await runMcpCli(process.argv.slice(3), { ...io, version: packageVersion() });
} else {
  const { runCli } = await import("./run-cli.js");
  process.exitCode = await runCli(process.argv.slice(2), io);
}
