/** The action's `post:` entry, bundled into action/dist/post.mjs (scripts/build-action.mjs). */
import { runPostStep } from "./post-step.js";

process.exitCode = await runPostStep({ env: process.env, log: (line) => process.stdout.write(`${line}\n`) });
