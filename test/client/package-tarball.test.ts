/**
 * @issue-leases/client as a bot author gets it: `npm pack` of the package
 * (its `prepack` builds it), the tarball installed in an empty project with
 * no network (the registry pointed at a closed port, `--offline`: the
 * package has no dependency, so nothing else is fetched), a consumer
 * type-checked by `tsc --strict` against the types in the tarball, then run
 * against the real server and the fake GitHub: a claim and a release through
 * `withLease`.
 *
 * It packs a copy of packages/client (its sources, package.json, tsconfig,
 * README and LICENSE, no dist/): the prepack build then writes the copy's
 * dist/, not the one the running servers of other test files import.
 */
import { execFile } from "node:child_process";
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FULL } from "../e2e/issue-view.js";
import { history } from "../e2e/ledger-file.js";
import { withLiveApp } from "../e2e/live-app.js";
import { REPO } from "../support/payloads.js";
import { ensureBuilt, ROOT } from "../support/server-process.js";

const BOT_TOKEN = "ghp_tarball_bot";
const BOT = { login: "deploy-bot", id: 5001 };

let dir: string;
let tarball: string;
/** What `npm pack --json` says of the tarball. */
let packed: { name: string; version: string; filename: string; files: Array<{ path: string }> };

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((done) => {
    execFile(cmd, args, { cwd, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env } }, (error, stdout, stderr) =>
      done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** No registry: any request npm would make fails at once. */
const OFFLINE = { npm_config_registry: "http://127.0.0.1:9/", npm_config_offline: "true", npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "issue-leases-tarball-"));
  const pkg = join(dir, "client");
  mkdirSync(pkg);
  for (const name of ["package.json", "tsconfig.json", "README.md", "LICENSE", "src"]) cpSync(join(ROOT, "packages/client", name), join(pkg, name), { recursive: true });
  // TypeScript for the prepack build, as the workspace's node_modules gives it.
  symlinkSync(join(ROOT, "node_modules"), join(pkg, "node_modules"), "dir");
  const r = await run("npm", ["pack", "--json", "--pack-destination", dir], pkg, OFFLINE);
  if (r.code !== 0) throw new Error(`npm pack failed:\n${r.stdout}\n${r.stderr}`);
  // npm prints the prepack's output before the JSON.
  packed = (JSON.parse(r.stdout.slice(r.stdout.indexOf("[\n"))) as Array<typeof packed>)[0]!;
  tarball = join(dir, packed.filename);
}, 300_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the @issue-leases/client tarball", () => {
  it("holds the built JavaScript, its types, the README and the licence; no sources, no build config", () => {
    expect(packed).toMatchObject({ name: "@issue-leases/client", version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    const files = packed.files.map((f) => f.path).sort();
    expect(files).toEqual(expect.arrayContaining(["LICENSE", "README.md", "package.json", "dist/index.js", "dist/index.d.ts", "dist/with-lease.js", "dist/with-lease.d.ts"]));
    expect(files.filter((f) => !/^dist\/[a-z-]+\.(js|d\.ts)$/.test(f))).toEqual(["LICENSE", "README.md", "package.json"]);
    expect(existsSync(tarball)).toBe(true);
  });

  it("installs in an empty project without the network, type-checks under tsc --strict, and claims and releases through withLease against the real server", () =>
    withLiveApp(async (live) => {
      const project = join(dir, "my-bot");
      mkdirSync(project);
      writeFileSync(join(project, "package.json"), JSON.stringify({ name: "my-bot", version: "1.0.0", type: "module", private: true }));
      const install = await run("npm", ["install", "--no-audit", "--no-fund", "--offline", tarball], project, OFFLINE);
      expect(install.stderr).not.toMatch(/ERR!/);
      expect(install.code).toBe(0);
      const installed = join(project, "node_modules/@issue-leases/client");
      // A copy, not a link back into this repository.
      expect(lstatSync(installed).isDirectory()).toBe(true);
      expect(JSON.parse(readFileSync(join(project, "package.json"), "utf8")).dependencies).toEqual({ "@issue-leases/client": expect.stringMatching(/^file:.*\.tgz$/) });
      expect(existsSync(join(installed, "src"))).toBe(false);

      writeFileSync(
        join(project, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            module: "NodeNext",
            moduleResolution: "NodeNext",
            target: "ES2022",
            lib: ["ES2022"],
            types: ["node"],
            typeRoots: [join(ROOT, "node_modules/@types")],
            outDir: "out",
            skipLibCheck: false,
          },
          files: ["bot.ts"],
        }),
      );
      writeFileSync(
        join(project, "bot.ts"),
        `import { type HeldLease, LeaseClient, LeaseHeldError } from "@issue-leases/client";

const [url, token, issue] = process.argv.slice(2) as [string, string, string];
const client = new LeaseClient({ baseUrl: url, token });
try {
  const seen = await client.withLease(issue, { ttl: "10m", instance: "tarball" }, async (lease: HeldLease, signal: AbortSignal) => {
    const status = await client.status(issue, { signal });
    return { token: lease.token, holder: status.holder?.login ?? null, instance: status.holder?.instance ?? null };
  });
  const after = await client.status(issue);
  console.log(JSON.stringify({ ...seen, after: after.holder }));
} catch (error) {
  if (error instanceof LeaseHeldError) console.log(JSON.stringify({ held: error.holder?.login }));
  else throw error;
}
`,
      );
      const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
      const good = await run(process.execPath, [tsc, "-p", ".", "--strict"], project);
      expect(good.stdout + good.stderr).toBe("");
      expect(good.code).toBe(0);

      // The types are the package's own, not `any`: a wrong one does not compile.
      writeFileSync(join(project, "wrong.ts"), `import { LeaseClient } from "@issue-leases/client";\nexport const n: number = (await new LeaseClient({ baseUrl: "https://x.example" }).claim("o/r#1")).repo;\n`);
      const bad = await run(process.execPath, [tsc, "--strict", "--noEmit", "--module", "nodenext", "--target", "es2022", "wrong.ts"], project);
      expect(bad.code).not.toBe(0);
      expect(bad.stdout).toMatch(/wrong\.ts\(2,14\): error TS2322: Type 'string' is not assignable to type 'number'/);

      live.fake.addRepo(FULL, { id: REPO.id });
      live.fake.addToken(BOT_TOKEN, BOT);
      const server = await live.start();
      const bot = await run(process.execPath, ["out/bot.js", server.url, BOT_TOKEN, `${FULL}#3`], project);
      expect(bot.stderr).toBe("");
      expect(bot.code).toBe(0);
      expect(JSON.parse(bot.stdout)).toEqual({ token: 1, holder: "deploy-bot", instance: "tarball", after: null });
      expect(history(live.dbFile).filter((h) => h.issue === 3).map((h) => [h.op, h.outcome, h.token])).toEqual([
        ["acquire", "acquired", 1],
        ["release", "released", 1],
      ]);
    }), 300_000);
});
