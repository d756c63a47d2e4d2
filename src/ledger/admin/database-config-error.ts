/**
 * DATABASE_URL names a database this process cannot use (an unknown scheme,
 * a file it cannot create or open, a server it cannot reach). The message is
 * one line ending in what to check; at start-up it is printed as that line,
 * not as a stack.
 */
export class DatabaseConfigError extends Error {
  override name = "DatabaseConfigError";
}
