/** docs/examples.md: every reply, the labels and the lease check, rendered by the app's own code (scripts/render-examples.ts). */
import { examplesDoc } from "../render-examples.js";

export const path = "docs/examples.md";

export function render(): string {
  return examplesDoc();
}
