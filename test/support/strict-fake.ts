/**
 * Every test fails on a request the fake GitHub did not serve: a path or a
 * layout GitHub does not serve (fake-github/layout.ts), a route it lacks, a
 * GraphQL document outside GitHub's schema. The app's own error handling
 * hides them otherwise: a 404 read as "the issue is gone" dropped every
 * effect on GitHub Enterprise Server, and no test saw it. A test that sends
 * one on purpose takes it with `fake.takeUnmatched()`. Run by vitest before
 * every test file (vitest.config.ts `setupFiles`).
 */
import { afterEach } from "vitest";
import { untakenUnmatched } from "./fake-github.js";

afterEach(() => {
  const unmatched = untakenUnmatched();
  if (unmatched.length > 0) {
    throw new Error(`the fake GitHub served no such thing: ${unmatched.join("; ")}. GitHub would answer 404 (or refuse the document): fix the request, or take it with fake.takeUnmatched() if the test sends it on purpose`);
  }
});
