/** The action's `main:` entry, bundled into action/dist/main.mjs (scripts/build-action.mjs). */
import { runMainStep } from "./main-step.js";
import { processIo } from "./runner.js";

process.exitCode = await runMainStep(processIo());
