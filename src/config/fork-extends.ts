/**
 * Which files a fork's pull request may have its config check read through
 * `_extends` (files.ts, `ExtendsGate`). The check runs on the fork's own
 * file, with the installation's token, and its check run is public: an
 * `_extends` into one of the installation's private repositories would
 * answer, line by line, what that file holds (which lines have keys the
 * schema lacks, whether it exists, its size, by bisection a value) to
 * whoever opened the pull request. So a fork's `_extends` is followed only
 * into a public repository (asked of GitHub, never guessed from the name)
 * or into the base repository itself, which whoever can open a pull request
 * on it can read. Everything else is refused the same way (private,
 * internal, missing, not the installation's), so the refusal tells nothing.
 */
import type { InstallationGitHub } from "../github/installation-port.js";
import type { ExtendsGate } from "./files.js";

/** What the gate asks GitHub: a repository, as the installation sees it. */
export type ForkGateGitHub = Pick<InstallationGitHub, "repository">;

/** The gate of a commit from a fork of `base` (a pull request whose head repository is another, or gone). */
export function forkExtendsGate(github: ForkGateGitHub, base: { owner: string; repo: string }): ExtendsGate {
  return async (ref) => {
    if (sameName(ref.owner, base.owner) && sameName(ref.repo, base.repo)) return true;
    // Not there, or not the token's to see (null): not public either. Other errors are GitHub's, and the delivery's to retry.
    const repo = await github.repository({ owner: ref.owner, repo: ref.repo });
    // An "internal" repository is private to its enterprise: not public.
    return repo !== null && repo.private === false && repo.visibility === "public";
  };
}

/** GitHub's owner and repository names compare without case. */
function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
