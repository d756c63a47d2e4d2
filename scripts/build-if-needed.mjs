// `npm start` and the benchmarks run compiled JavaScript. Build when dist/ is
// missing or older than any source file, so that a fresh clone needs only
// `npm ci && npm start`.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

const stamp = "dist/src/index.js";
const stale =
  !existsSync(stamp) ||
  Math.max(newest("src"), newest("bench"), statSync("tsconfig.json").mtimeMs) > statSync(stamp).mtimeMs;
if (stale) {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], {
    stdio: "inherit",
  });
}
