/**
 * docs/reference/cli.md: every command and flag of `issue-leases`, as its
 * help texts say them: the CLI itself is asked (`issue-leases --help`, then
 * `issue-leases <command> --help` for each command its help lists, the same
 * for `agent`'s commands, and `mcp --help`), so the page is what a user's
 * terminal shows.
 */
import { runCli } from "../../src/cli/run-cli.js";
import { fenced, generatedNote } from "../docs/markdown.js";

export const path = "docs/reference/cli.md";

/** What `issue-leases ARGS` prints, standard output and standard error together (mcp writes its help to stderr). */
async function help(args: string[]): Promise<string> {
  let text = "";
  const write = (t: string) => (text += t.endsWith("\n") ? t : `${t}\n`);
  const code = await runCli(args, { out: write, err: write, clock: () => 0, env: {} });
  if (code !== 0) throw new Error(`issue-leases ${args.join(" ")} exited ${code}:\n${text}`);
  return text.trimEnd();
}

/** The command names a help text lists, each on a line of its own indented by two spaces. */
function commandsIn(text: string, from: string, to: string): string[] {
  const part = text.slice(text.indexOf(from), to === "" ? undefined : text.indexOf(to));
  return [...new Set([...part.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]!))];
}

function section(level: string, title: string, text: string): string {
  return `${level} \`${title}\`\n\n${fenced("text", text)}`;
}

export async function render(): Promise<string> {
  const main = await help(["--help"]);
  const operator = commandsIn(main, "Operator commands", "Options:").filter((c) => c !== "agent" && c !== "mcp");
  const agent = await help(["agent", "--help"]);
  const agentCommands = commandsIn(agent, "Commands:", "Options");
  const parts = [
    "# CLI",
    "",
    generatedNote("scripts/reference/cli.ts", "the CLI's help texts (src/cli/)"),
    "",
    "Every command and flag of `issue-leases`, as `--help` prints it. The",
    "operator commands read the app's database (`DATABASE_URL`, or `--database`),",
    "but `check-config` and `import-config`, which read a file;",
    "the client commands (`issue-leases agent …`) and `issue-leases mcp` talk to",
    "the app's API. Guides: [the operator CLI](../operators/operator-cli.md),",
    "[shell agents](../bots-and-agents/agent-cli.md), [the MCP server](../bots-and-agents/mcp.md),",
    "[checking the config](../maintainers/checks.md#checking-the-file-the-issue-leases-config-check-run-and-check-config),",
    "[switching from another bot](../maintainers/switching.md).",
    "",
    section("##", "issue-leases --help", main),
  ];
  for (const command of operator) parts.push("", section("##", `issue-leases ${command}`, await help([command, "--help"])));
  parts.push("", section("##", "issue-leases agent", agent));
  for (const command of agentCommands) parts.push("", section("###", `issue-leases agent ${command}`, await help(["agent", command, "--help"])));
  parts.push("", section("##", "issue-leases mcp", await help(["mcp", "--help"])), "");
  return parts.join("\n");
}
