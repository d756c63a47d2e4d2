/** What a CLI command is given to talk to the world: its output, its clock and its environment (tests pass their own). */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Milliseconds since the epoch. */
  clock(): number;
  env: NodeJS.ProcessEnv;
  /** Standard input, whole, up to `maxBytes` (more is an error); null when it is a terminal. Absent: none to read. */
  readStdin?(maxBytes: number): Promise<string | null>;
}
