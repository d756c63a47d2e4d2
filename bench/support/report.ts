/** Small helpers the benchmarks share for their statistics and printed tables. */

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export const pad = (s: string, n: number): string => (s.length >= n ? s : " ".repeat(n - s.length) + s);

export const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * Where the human-readable report goes: stdout, or stderr under `--json` so
 * that stdout carries only the JSON line (`npm run` shows both).
 */
export function reporter(json: boolean): (line: string) => void {
  return json ? (line) => console.error(line) : (line) => console.log(line);
}

/** A table with a left-aligned label column and right-aligned value columns. */
export function table(log: (line: string) => void, head: string[], rows: string[][], widths: { label: number; value: number }): void {
  const line = (cells: string[]) => [cells[0]!.padEnd(widths.label), ...cells.slice(1).map((c) => pad(c, widths.value))].join("");
  log(line(head));
  for (const row of rows) log(line(row));
}

/** Nearest-rank percentile, `p` from 0 to 100. */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}
