/**
 * `import { LeaseClient } from "@issue-leases/client"`, and the app's
 * `issue-leases/client` (the same files, for projects that installed the
 * app), as a bot author's project does it: a package in its own folder with
 * both in its node_modules (symlinks to this repository and to
 * packages/client, as `npm link` or a `file:` dependency makes), run by
 * Node and type-checked by TypeScript. And the client stands alone: nothing
 * of the app, nothing of Node beyond fetch. test/client/package-tarball.test.ts
 * installs the packed tarball instead.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sourceFiles } from "../support/import-graph.js";
import { ensureBuilt, ROOT } from "../support/server-process.js";

let consumer: string;

function run(cmd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(cmd, args, { cwd: consumer }, (error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }));
  });
}

beforeAll(async () => {
  await ensureBuilt();
  consumer = mkdtempSync(join(tmpdir(), "issue-leases-consumer-"));
  mkdirSync(join(consumer, "node_modules"));
  symlinkSync(ROOT, join(consumer, "node_modules/issue-leases"), "dir");
  mkdirSync(join(consumer, "node_modules/@issue-leases"));
  symlinkSync(join(ROOT, "packages/client"), join(consumer, "node_modules/@issue-leases/client"), "dir");
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "my-bot", type: "module", private: true }));
}, 180_000);

afterAll(() => {
  rmSync(consumer, { recursive: true, force: true });
});

describe("@issue-leases/client, and the issue-leases/client subpath export", () => {
  it("resolve by package name in Node, to the one built client: an error of one is an instance of the other's class", async () => {
    writeFileSync(
      join(consumer, "bot.mjs"),
      `import { LeaseClient, LeaseHeldError, LeaseLostError } from "@issue-leases/client";
import * as app from "issue-leases/client";
const client = new LeaseClient({ baseUrl: "http://127.0.0.1:9", token: "t" });
console.log(JSON.stringify({
  client: typeof client.withLease,
  held: LeaseHeldError.name,
  lost: LeaseLostError.name,
  same: app.LeaseClient === LeaseClient && app.LeaseHeldError === LeaseHeldError,
  resolved: import.meta.resolve("@issue-leases/client"),
  viaApp: import.meta.resolve("issue-leases/client"),
}));
`,
    );
    const r = await run(process.execPath, ["bot.mjs"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, string | boolean>;
    expect(out).toMatchObject({ client: "function", held: "LeaseHeldError", lost: "LeaseLostError", same: true });
    // Node resolves the links: both names are the one file.
    const built = pathToFileURL(join(ROOT, "packages/client/dist/index.js")).href;
    expect(out.resolved).toBe(built);
    expect(out.viaApp).toBe(built);
  });

  it.each([
    ["issue-leases/packages/client/dist/http.js"],
    ["@issue-leases/client/dist/http.js"],
  ])("exposes only what package.json exports: %s is not importable", async (path) => {
    writeFileSync(join(consumer, "deep.mjs"), `await import(${JSON.stringify(path)});\n`);
    const r = await run(process.execPath, ["deep.mjs"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("ERR_PACKAGE_PATH_NOT_EXPORTED");
  });

  it("is typed for a TypeScript consumer (NodeNext): good code compiles, a wrong type does not", async () => {
    writeFileSync(
      join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", strict: true, noEmit: true, types: [], lib: ["ES2022", "DOM"], skipLibCheck: false },
        files: ["bot.ts"],
      }),
    );
    const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
    writeFileSync(
      join(consumer, "bot.ts"),
      `import { LeaseClient, LeaseHeldError, type LeaseAnswer } from "@issue-leases/client";
import { LeaseClient as AppLeaseClient } from "issue-leases/client";
const client: LeaseClient = new AppLeaseClient({ baseUrl: "https://leases.example.com", token: () => "t", retry: { retries: 2 } });
export async function work(): Promise<number | null> {
  try {
    const lease: LeaseAnswer = await client.claim("octo-org/widgets#12", { ttl: "30m", instance: "w1" });
    return await client.withLease({ owner: "octo-org", repo: "widgets", issue: 12 }, { ttl: "30m" }, async (held, signal) => {
      signal.throwIfAborted();
      return held.token ?? lease.token;
    });
  } catch (error) {
    if (error instanceof LeaseHeldError) return error.token;
    throw error;
  }
}
`,
    );
    const good = await run(process.execPath, [tsc, "-p", "."]);
    expect(good.stdout + good.stderr).toBe("");
    expect(good.code).toBe(0);

    writeFileSync(
      join(consumer, "bot.ts"),
      `import { LeaseClient } from "issue-leases/client";
const client = new LeaseClient({ baseUrl: "https://leases.example.com" });
export const n: number = (await client.claim("octo-org/widgets#12")).repo;
`,
    );
    const bad = await run(process.execPath, [tsc, "-p", "."]);
    expect(bad.code).not.toBe(0);
    expect(bad.stdout).toMatch(/bot\.ts\(3,14\): error TS2322: Type 'string' is not assignable to type 'number'/);
  }, 60_000);
});

describe("the manual's TypeScript examples", () => {
  const examples = (path: string) =>
    [...readFileSync(join(ROOT, path), "utf8").matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!).filter((b) => b.includes("issue-leases/client"));
  // The guides for bot authors (what the README's section for bot authors was), and the README itself.
  const guides = ["README.md", ...readdirSync(join(ROOT, "docs/bots-and-agents")).map((f) => `docs/bots-and-agents/${f}`)];
  const manual = guides.flatMap(examples);
  const blocks = [...manual, ...examples("packages/client/README.md")];

  it("compile against the package as a bot author's project imports it", async () => {
    expect(manual.length).toBeGreaterThanOrEqual(2);
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    const files = blocks.map((_, i) => `readme-${i}.ts`);
    blocks.forEach((block, i) => writeFileSync(join(consumer, files[i]!), `${block}\nexport {};\n`));
    writeFileSync(
      join(consumer, "tsconfig.readme.json"),
      JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          strict: true,
          noEmit: true,
          types: ["node"],
          typeRoots: [join(ROOT, "node_modules/@types")],
          lib: ["ES2022"],
        },
        files,
      }),
    );
    const r = await run(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.readme.json"]);
    expect(r.stdout + r.stderr).toBe("");
    expect(r.code).toBe(0);
  }, 60_000);
});

describe("the client stands alone", () => {
  const dir = join(ROOT, "packages/client/src");
  const files = readdirSync(dir).filter((f) => f.endsWith(".ts"));

  it.each(files)("packages/client/src/%s imports only files of its folder", (file) => {
    const text = readFileSync(join(dir, file), "utf8");
    const specifiers = [...text.matchAll(/^\s*(?:import|export)\b[^;]*?\sfrom\s+"([^"]+)"|^\s*import\s+"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)/gm)].map(
      (m) => m[1] ?? m[2] ?? m[3],
    );
    for (const spec of specifiers) expect(spec, `${file} imports ${spec}`).toMatch(/^\.\/[a-z-]+\.js$/);
    // No Node module either, through a global: only fetch and web globals (examples in comments aside).
    const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    expect(code).not.toMatch(/\bprocess\.|\brequire\(|\bBuffer\b/);
  });

  it("has files to check", () => {
    expect(files).toContain("index.ts");
    expect(files).toContain("lease-client.ts");
  });

  it("is imported by the app by its name only, never by a path into packages/", () => {
    const byPath = sourceFiles(ROOT, "src").filter((f) => /from\s+"(?:\.\.\/)+packages\//.test(readFileSync(join(ROOT, f), "utf8")));
    expect(byPath).toEqual([]);
    const byName = sourceFiles(ROOT, "src").filter((f) => readFileSync(join(ROOT, f), "utf8").includes('from "@issue-leases/client"'));
    expect(byName).toEqual(expect.arrayContaining(["src/cli/agent-cli.ts", "src/cli/agent-run.ts", "src/action/settings.ts"]));
  });

  it("is a dependency of the app, from the workspace: what `npm install` of the app (from GitHub too) links", () => {
    const app = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string>; workspaces: string[] };
    const client = JSON.parse(readFileSync(join(ROOT, "packages/client/package.json"), "utf8")) as { name: string; dependencies?: unknown };
    expect(client.name).toBe("@issue-leases/client");
    expect(client.dependencies).toBeUndefined();
    expect(app.workspaces).toEqual(["packages/client"]);
    expect(app.dependencies[client.name]).toBe("file:packages/client");
  });
});
