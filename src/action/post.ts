/** The action's `post:` entry, bundled into action/dist/post.mjs (scripts/build-action.mjs). */
import { runPostStep } from "./post-step.js";
import { processIo } from "./runner.js";

process.exitCode = await runPostStep(processIo());
