import { RE2JS, RE2JSException } from 're2js';

/**
 * CEL's `matches()` on RE2 semantics (re2js, a pure-JS port of RE2): matching takes time linear in
 * the input, whatever the pattern, so a rule can never freeze a worker on a crafted title. RE2
 * refuses what it cannot run in linear time (lookaround, backreferences): such a pattern, or one
 * that does not compile at all, is refused by `policy set` (`regexProblem`).
 */
export const RE2_MATCHES = '__re2_matches';

/** Compiled patterns, most recent last; bounded so dynamic patterns cannot grow it. */
const compiled = new Map<string, RE2JS>();
const MAX_CACHED = 256;

function compile(pattern: string): RE2JS {
  const hit = compiled.get(pattern);
  if (hit) return hit;
  const re = RE2JS.compile(pattern);
  if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value as string);
  compiled.set(pattern, re);
  return re;
}

/** Why RE2 refuses `pattern`, or null when it compiles. */
export function regexProblem(pattern: string): string | null {
  try {
    compile(pattern);
    return null;
  } catch (error) {
    const message = error instanceof RE2JSException ? error.message : String(error);
    return `the regular expression ${JSON.stringify(pattern)} is not accepted by RE2 (${message})`;
  }
}

/** Thrown when an evaluation runs past its time budget (evaluate.ts). */
export class BudgetExceeded extends Error {
  constructor() {
    super('the evaluation ran past its time budget');
    this.name = 'BudgetExceeded';
  }
}

/** The running evaluation's deadline (evaluation is synchronous: one at a time per process). */
let deadline: { at: number; now: () => number } | null = null;

/** Runs `fn` with a deadline that each `matches` call checks before it runs. */
export function withDeadline<T>(at: number, now: () => number, fn: () => T): T {
  const previous = deadline;
  deadline = { at, now };
  try {
    return fn();
  } finally {
    deadline = previous;
  }
}

/** CEL `matches`: a match anywhere in `text` (as CEL's RE2 `matches`); an invalid pattern throws. */
export function re2Matches(text: string, pattern: string): boolean {
  if (deadline && deadline.now() > deadline.at) throw new BudgetExceeded();
  let re: RE2JS;
  try {
    re = compile(pattern);
  } catch (error) {
    const message = error instanceof RE2JSException ? error.message : String(error);
    throw new Error(`invalid regular expression ${JSON.stringify(pattern)}: ${message}`);
  }
  return re.test(text);
}
