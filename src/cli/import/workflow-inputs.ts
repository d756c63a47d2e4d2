/**
 * The `with:` inputs of the workflow steps that use an action, as the
 * runner would give them where that can be known without running it: a
 * value, or an expression that only reads `env` (`${{ env.<NAME> }}`)
 * where the step's, its job's or the workflow's own `env:` (the first that
 * has the name, as GitHub looks them up) gives it a literal. Any other
 * expression (`${{ vars.DAYS }}`, `${{ secrets.X }}`, an `env` value that is
 * itself an expression) is known only when the workflow runs: such an input
 * has no value here, and says so.
 */
import { isMapping, show } from "./imported.js";

export interface StepInput {
  /** As written in the workflow. */
  raw: string;
  /** What the runner gives the action; null for an expression known only when the workflow runs. */
  value: string | null;
  /** Where an expression's value was found: "the job's `env:`". */
  from?: string;
}

export interface ActionStep {
  uses: string;
  inputs: Map<string, StepInput>;
  /** Inputs whose value is not a scalar (a list, a mapping): what they are, to be named. */
  odd: Array<{ name: string; raw: unknown }>;
}

/** Each step of `workflow` whose `uses:` matches `action`, with its inputs read. */
export function actionSteps(workflow: unknown, action: RegExp): ActionStep[] {
  if (!isMapping(workflow) || !isMapping(workflow.jobs)) return [];
  const steps: ActionStep[] = [];
  const workflowEnv = envOf(workflow.env);
  for (const job of Object.values(workflow.jobs)) {
    if (!isMapping(job) || !Array.isArray(job.steps)) continue;
    const jobEnv = envOf(job.env);
    for (const step of job.steps) {
      if (!isMapping(step) || typeof step.uses !== "string" || !action.test(step.uses.trim())) continue;
      const envs: Env[] = [
        ["the step's `env:`", envOf(step.env)],
        ["the job's `env:`", jobEnv],
        ["the workflow's `env:`", workflowEnv],
      ];
      const inputs = new Map<string, StepInput>();
      const odd: ActionStep["odd"] = [];
      for (const [name, raw] of Object.entries(isMapping(step.with) ? step.with : {})) {
        if (typeof raw === "number" || typeof raw === "boolean") inputs.set(name, { raw: String(raw), value: String(raw) });
        else if (typeof raw === "string") inputs.set(name, resolve(raw, envs));
        else odd.push({ name, raw });
      }
      steps.push({ uses: step.uses, inputs, odd });
    }
  }
  return steps;
}

type Env = [where: string, values: Record<string, unknown> | null];

function envOf(env: unknown): Record<string, unknown> | null {
  return isMapping(env) ? env : null;
}

// `${{ env.<NAME> }}` or `${{ env['<NAME>'] }}`, spaces optional.
const ENV_REF = /^\s*env\s*(?:\.\s*([A-Za-z_][\w-]*)|\[\s*(['"])([^'"]+)\2\s*\])\s*$/;
const EXPRESSION = /\$\{\{([\s\S]*?)\}\}/g;

/** An input's value where its expressions read only `env` names that a workflow's own `env:` sets to a literal. */
function resolve(raw: string, envs: Env[]): StepInput {
  if (!raw.includes("${{")) return { raw, value: raw };
  const places = new Set<string>();
  let known = true;
  const value = raw.replace(EXPRESSION, (whole, inner: string) => {
    const ref = ENV_REF.exec(inner);
    const found = ref === null ? null : lookup(ref[1] ?? ref[3]!, envs);
    if (found === null) {
      known = false;
      return whole;
    }
    places.add(found.where);
    return found.value;
  });
  if (!known || value.includes("${{")) return { raw, value: null };
  return { raw, value, from: [...places].join(" and ") };
}

/** The literal an `env:` gives `name` (the step's first, then the job's, then the workflow's), or null. */
function lookup(name: string, envs: Env[]): { value: string; where: string } | null {
  for (const [where, values] of envs) {
    if (values === null) continue;
    // GitHub's expressions read a context's properties without regard to case.
    const key = Object.hasOwn(values, name) ? name : Object.keys(values).find((k) => k.toLowerCase() === name.toLowerCase());
    if (key === undefined) continue;
    const v = values[key];
    if (typeof v === "number" || typeof v === "boolean") return { value: String(v), where };
    if (typeof v === "string" && !v.includes("${{")) return { value: v, where };
    // Found, but itself an expression (or not a scalar): known only when the workflow runs.
    return null;
  }
  return null;
}

/** How an input shows in a comment: as written, and, for an expression, what it gives and from where. */
export function shownInput(input: StepInput): string {
  if (input.from === undefined) return show(input.raw);
  return `${show(input.raw)}, ${show(input.value)} in ${input.from}`;
}
