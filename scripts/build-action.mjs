// Bundles the GitHub Action (src/action/) into action/dist/: one file per
// step, each with the client and what it uses of the CLI inside, so that the
// runner runs it with the Node it brings, without `npm install`. The bundles
// are committed (action.yml names them); test/action/bundle.test.ts builds
// them again into a temporary folder and fails when they differ.
//
//   node scripts/build-action.mjs [OUTDIR]     (default action/dist)
import { build } from "esbuild";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = resolve(process.argv[2] ?? join(root, "action/dist"));

await build({
  absWorkingDir: root,
  entryPoints: { main: "src/action/main.ts", post: "src/action/post.ts" },
  outdir,
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  // The Node action.yml's `runs.using` names (GitHub's runners bring it); test/action/bundle.test.ts keeps the two the same.
  target: "node24",
  format: "esm",
  // The client's sources, not its dist/: the bundle does not depend on a build of the package being fresh.
  alias: { "@issue-leases/client": "./packages/client/src/index.ts" },
  // Readable and reviewable in a diff: what runs on every user's runner.
  minify: false,
  sourcemap: false,
  legalComments: "inline",
  charset: "utf8",
  banner: { js: "// Built by scripts/build-action.mjs from src/action/ and packages/client/src/: do not edit. Rebuild with `npm run build:action`." },
  logLevel: "warning",
});
