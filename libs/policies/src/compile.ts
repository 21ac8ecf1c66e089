import type { ParseError, ParseResult, TypeError } from '@marcbachmann/cel-js';
import { policyEnvironment } from './cel-environment';
import { checkPolicyShape, type PolicyFile, type PolicyProblem, type PolicyRule } from './policy-file';

/** A rule ready to run: its condition parsed and type-checked against the documented variables. */
export interface CompiledRule {
  readonly rule: PolicyRule;
  /** 1-based position in the file. */
  readonly position: number;
  readonly condition: ParseResult;
  /** Whether the condition reads `scores` (it cannot match when the scoring service did not answer). */
  readonly readsScores: boolean;
}

export interface CompiledPolicy {
  readonly file: PolicyFile;
  readonly rules: readonly CompiledRule[];
  /** Whether any rule reads `scores`: only then is the scoring service asked. */
  readonly readsScores: boolean;
}

export type PolicyCompilation = { ok: true; policy: CompiledPolicy } | { ok: false; problems: PolicyProblem[] };

/** 1-based line and column of an offset in an expression. */
function position(expression: string, offset: number): { line: number; column: number } {
  const before = expression.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

function celProblem(rule: PolicyRule, index: number, error: ParseError | TypeError | undefined): PolicyProblem {
  const at = error?.range ? position(rule.when, error.range.start) : { line: 1, column: 1 };
  const summary = error?.summary ?? error?.message ?? 'the condition is not valid CEL';
  return { rule: index + 1, name: rule.name || null, path: `/rules/${index}/when`, message: summary, ...at };
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
  const env = policyEnvironment();
  const compiled: CompiledRule[] = [];
  rules.forEach((rule, index) => {
    if (typeof rule.when !== 'string' || rule.when.length === 0) return;
    const checked = env.check(rule.when);
    if (!checked.valid) {
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
    compiled.push({
      rule,
      position: index + 1,
      condition: env.parse(rule.when),
      readsScores: /\bscores\b/.test(rule.when),
    });
  });
  if (!shape.ok || problems.length > 0) return { ok: false, problems };
  return { ok: true, policy: { file: shape.file, rules: compiled, readsScores: compiled.some((r) => r.readsScores) } };
}

function readableRules(input: unknown): PolicyRule[] {
  const rules = (input as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(rules)) return [];
  return rules.map((r) => {
    const rule = (r ?? {}) as Partial<PolicyRule>;
    return { ...rule, name: typeof rule.name === 'string' ? rule.name : '' } as PolicyRule;
  });
}
