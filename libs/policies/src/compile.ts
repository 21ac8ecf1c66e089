import type { ParseError, ParseResult, TypeError } from '@marcbachmann/cel-js';
import { conditionFacts, MAX_COMPREHENSION_NESTING, useRe2 } from './cel-analysis';
import { policyEnvironment } from './cel-environment';
import { RE2_MATCHES, regexProblem } from './cel-regex';
import { checkPolicyShape, type PolicyFile, type PolicyProblem, type PolicyRule } from './policy-file';

/** A rule ready to run: its condition parsed and type-checked against the documented variables. */
export interface CompiledRule {
  readonly rule: PolicyRule;
  /** 1-based position in the file. */
  readonly position: number;
  readonly condition: ParseResult;
  /**
   * Whether the condition reads `scores` (from its parsed form): without the scores, or when it
   * reads one the service did not send, it holds the frame for people (docs/policies.md).
   */
  readonly readsScores: boolean;
  /** Whether the condition reads `agent` (from its parsed form): only then is the agent's record read. */
  readonly readsAgent: boolean;
}

export interface CompiledPolicy {
  readonly file: PolicyFile;
  readonly rules: readonly CompiledRule[];
  /** Whether any rule reads `scores`: only then is the scoring service asked. */
  readonly readsScores: boolean;
  /** Whether any rule reads `agent`: only then is the agent's record read (issue 43, point 9). */
  readonly readsAgent: boolean;
  /** The stored version it was compiled from (policy-store); absent for a file not stored. */
  readonly version?: number;
  /**
   * A stored policy that no longer compiles (e.g. after a library upgrade): it has no rules, and
   * every frame of its channel is held for people (evaluatePolicy), never routed as without one.
   */
  readonly broken?: readonly PolicyProblem[];
}

export type PolicyCompilation = { ok: true; policy: CompiledPolicy } | { ok: false; problems: PolicyProblem[] };

/** 1-based line and column of an offset in an expression. */
function position(expression: string, offset: number): { line: number; column: number } {
  const before = expression.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

function celProblem(rule: PolicyRule, index: number, error: ParseError | TypeError | undefined): PolicyProblem {
  const at = error?.range ? position(rule.when, error.range.start) : { line: 1, column: 1 };
  const summary = (error?.summary ?? error?.message ?? 'the condition is not valid CEL').replaceAll(
    RE2_MATCHES,
    'matches',
  );
  return { rule: index + 1, name: rule.name || null, path: `/rules/${index}/when`, message: summary, ...at };
}

function ruleProblem(rule: PolicyRule, index: number, message: string, offset = 0): PolicyProblem {
  return {
    rule: index + 1,
    name: rule.name || null,
    path: `/rules/${index}/when`,
    message,
    ...position(rule.when, offset),
  };
}

/** A condition parsed with `matches` on RE2, and type-checked; or the parse or type error. */
function parseCondition(
  when: string,
): { ok: true; condition: ParseResult; type: string } | { ok: false; error: ParseError | TypeError | undefined } {
  let condition: ParseResult;
  try {
    condition = policyEnvironment().parse(when);
  } catch (error) {
    return { ok: false, error: error as ParseError };
  }
  useRe2(condition.ast);
  const checked = condition.check();
  return checked.valid ? { ok: true, condition, type: checked.type ?? 'dyn' } : { ok: false, error: checked.error };
}

/** What RE2 or the cost budget refuses in a condition that type-checks. */
function budgetProblems(rule: PolicyRule, index: number, condition: ParseResult): PolicyProblem[] {
  const facts = conditionFacts(condition.ast);
  const problems = facts.patterns.flatMap(({ pattern, start }) => {
    const problem = regexProblem(pattern);
    return problem ? [ruleProblem(rule, index, problem, start)] : [];
  });
  if (facts.comprehensionNesting > MAX_COMPREHENSION_NESTING)
    problems.push(
      ruleProblem(
        rule,
        index,
        `comprehensions (all, exists, exists_one, map, filter) are nested ${facts.comprehensionNesting} deep; at most ${MAX_COMPREHENSION_NESTING} is allowed (docs/policies.md, "Cost budget")`,
      ),
    );
  return problems;
}

/**
 * Validates the whole file (shape, options, reasons) and compiles each condition against the
 * documented variables: a syntax error, an unknown variable or field, a type error, a condition
 * that is not a bool. Every problem is listed, each with the rule's position and name and, for
 * CEL, the line and column in the expression.
 */
export function compilePolicy(input: unknown, allowedReasons: readonly string[]): PolicyCompilation {
  const shape = checkPolicyShape(input, allowedReasons);
  // A file whose shape is wrong still has its readable conditions checked, so one run lists everything.
  const rules: PolicyRule[] = shape.ok ? shape.file.rules : readableRules(input);
  const problems: PolicyProblem[] = shape.ok ? [] : [...shape.problems];
  const compiled: CompiledRule[] = [];
  rules.forEach((rule, index) => {
    if (typeof rule.when !== 'string' || rule.when.length === 0) return;
    const checked = parseCondition(rule.when);
    if (!checked.ok) {
      problems.push(celProblem(rule, index, checked.error));
      return;
    }
    if (checked.type !== 'bool') {
      problems.push({
        rule: index + 1,
        name: rule.name,
        path: `/rules/${index}/when`,
        message: `the condition is a ${checked.type}, not a bool`,
        line: 1,
        column: 1,
      });
      return;
    }
    const refused = budgetProblems(rule, index, checked.condition);
    if (refused.length > 0) {
      problems.push(...refused);
      return;
    }
    const { readsScores, readsAgent } = conditionFacts(checked.condition.ast);
    compiled.push({ rule, position: index + 1, condition: checked.condition, readsScores, readsAgent });
  });
  if (!shape.ok || problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    policy: {
      file: shape.file,
      rules: compiled,
      readsScores: compiled.some((r) => r.readsScores),
      readsAgent: compiled.some((r) => r.readsAgent),
    },
  };
}

function readableRules(input: unknown): PolicyRule[] {
  const rules = (input as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(rules)) return [];
  return rules.map((r) => {
    const rule = (r ?? {}) as Partial<PolicyRule>;
    return { ...rule, name: typeof rule.name === 'string' ? rule.name : '' } as PolicyRule;
  });
}
