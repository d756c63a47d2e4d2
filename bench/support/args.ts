/** Command-line flags of the benchmarks: strict parsing, `-h`/`--help`, and exit code 2 with the usage line. */
import { parseArgs, type ParseArgsConfig } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;
export type FlagValues = Record<string, string | boolean | undefined>;

/** Prints what was wrong (if anything) and the usage line, and exits 2. */
export function usageExit(usage: string, problem?: string): never {
  if (problem) console.error(problem);
  console.error(`usage: ${usage}`);
  process.exit(2);
}

/** The flags' values; an unknown flag, a malformed one or `--help` prints the usage and exits 2. */
export function benchArgs(usage: string, options: Options): FlagValues {
  let values: FlagValues;
  try {
    ({ values } = parseArgs({ options: { ...options, help: { type: "boolean", short: "h", default: false } }, strict: true }) as {
      values: FlagValues;
    });
  } catch (err) {
    return usageExit(usage, (err as Error).message);
  }
  if (values.help === true) usageExit(usage);
  return values;
}

/** `--json`, `--pairs`, `--clients` and `--rounds` (whole numbers from 1), as the benchmarks of the API's clients take them. */
export function clientArgs(usage: string, defaults: { pairs: number; clients: number; rounds: number }): { json: boolean; pairs: number; clients: number; rounds: number } {
  const values = benchArgs(usage, {
    json: { type: "boolean", default: false },
    pairs: { type: "string", default: String(defaults.pairs) },
    clients: { type: "string", default: String(defaults.clients) },
    rounds: { type: "string", default: String(defaults.rounds) },
  });
  const [pairs, clients, rounds] = [Number(values.pairs), Number(values.clients), Number(values.rounds)];
  if (![pairs, clients, rounds].every((n) => Number.isInteger(n) && n >= 1)) usageExit(usage);
  return { json: values.json === true, pairs, clients, rounds };
}
