#!/usr/bin/env node
// The package's bin. It is committed with its execute bit, unlike the compiled
// dist/src/cli/main.js, which tsc writes without one and which a fresh clone does
// not have: `npm ci && npx issue-leases` must work. Where the dev
// dependencies are installed it builds first when dist/ is missing or older
// than the sources (scripts/build-if-needed.mjs, as `npm start` does); a
// production install (`npm ci --omit=dev`, no TypeScript) runs the dist/ it
// was deployed with.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "dist/src/cli/main.js");

if (existsSync(join(root, "node_modules/typescript")) && existsSync(join(root, "src"))) {
  try {
    // The script works relative to its directory; its output (tsc's errors) goes to stderr, keeping stdout the CLI's.
    execFileSync(process.execPath, [join(root, "scripts/build-if-needed.mjs")], { cwd: root, stdio: ["ignore", 2, 2] });
  } catch {
    process.stderr.write("issue-leases: building dist/ failed (see above): fix the build, or run `npm run build`\n");
    process.exit(1);
  }
}
if (!existsSync(cli)) {
  process.stderr.write(
    `issue-leases: ${cli} is missing and TypeScript is not installed to build it: ` +
      "run `npm ci && npm run build` with the dev dependencies, or deploy the built dist/\n",
  );
  process.exit(1);
}
await import(pathToFileURL(cli).href);
