/**
 * The action's post step (action.yml's `post:`): the runner runs it when the
 * job ends, after its other steps, also when one of them failed or the job
 * was cancelled. It releases the lease the main step claimed, as its state
 * names it; when the main step holds nothing (it failed, it ran a command
 * that released already), there is nothing to do.
 *
 * A release that fails is a warning, not a failed job: the lease ends at its
 * expiry anyway.
 */
import { formatRef, LeaseNotHolderError, parseRef } from "@issue-leases/client";
import { describeError } from "../cli/agent-exit.js";
import { input, mask, type RunnerIo, state, warning } from "./runner.js";
import { ACTION_NAMES, clientFor, InputError, readConnection } from "./settings.js";

export async function runPostStep(io: RunnerIo): Promise<number> {
  mask(io, input(io, "token"));
  const issue = state(io, "issue");
  if (issue === "") {
    io.log("issue-leases: this job holds no lease of the action's: nothing to release");
    return 0;
  }
  const instance = state(io, "instance") || undefined;
  try {
    const ref = parseRef(issue);
    const answer = await clientFor(readConnection(io)).release(ref, { instance });
    io.log(
      answer.token === null
        ? `issue-leases: ${formatRef(ref)} was not held any more (it expired, or was released): nothing to release`
        : `issue-leases: released ${formatRef(ref)} (token ${answer.token})`,
    );
  } catch (e) {
    if (e instanceof LeaseNotHolderError) warning(io, `${issue} is not this job's any more: ${e.message}; nothing released`);
    else if (e instanceof InputError) warning(io, `cannot release ${issue}: ${e.message}`);
    else warning(io, `releasing ${issue} failed: ${describeError(e, ACTION_NAMES)}; the lease ends at its expiry`);
  }
  return 0;
}
