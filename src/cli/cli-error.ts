/**
 * Exit codes of the operator CLI, and the one error it shows: a single line
 * on stderr that says what to do, never a stack trace.
 */
export const EXIT = {
  ok: 0,
  /** A doctor check failed, or the database could not be opened or queried. */
  failure: 1,
  /** Unknown command or flag, malformed or missing argument. */
  usage: 2,
  /** Unknown repository or issue. */
  notFound: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
    this.name = "CliError";
  }
}

export const usageError = (message: string): CliError => new CliError(message, EXIT.usage);
