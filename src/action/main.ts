/** The action's `main:` entry, bundled into action/dist/main.mjs (scripts/build-action.mjs). */
import { runMainStep } from "./main-step.js";

process.exitCode = await runMainStep({ env: process.env, log: (line) => process.stdout.write(`${line}\n`) });
