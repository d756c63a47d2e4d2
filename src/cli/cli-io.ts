/** What a CLI command is given to talk to the world: its output, its clock and its environment (tests pass their own). */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Milliseconds since the epoch. */
  clock(): number;
  env: NodeJS.ProcessEnv;
}
