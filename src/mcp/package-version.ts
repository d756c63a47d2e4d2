/** The app's version, for the MCP server's `serverInfo` and the CLI's `--version`: its package.json, found upwards (dist/src/mcp/ once built, src/mcp/ in tests). */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "issue-leases") return pkg.version ?? "unknown";
    }
    dir = dirname(dir);
  }
  return "unknown";
}
