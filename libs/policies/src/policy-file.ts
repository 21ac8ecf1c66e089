import { compileValidator } from '@framedesk/config';
import { type Static, Type } from '@sinclair/typebox';

/**
 * A review policy file (docs/policies.md): ordered rules, the first whose `when` matches decides.
 * The JSON shape only; the conditions are compiled by `compilePolicy`.
 */
export const MAX_RULES = 50;

export const PolicyRuleSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9 _.-]*$' }),
    when: Type.String({ minLength: 1, maxLength: 2000 }),
    action: Type.Union([Type.Literal('promote'), Type.Literal('reject'), Type.Literal('review')]),
    /** `reject`: one of the channel's reject reasons. */
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    /** `promote` / `reject`: the share of matches sent to people instead (0–1). */
    sample: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    /** `review`: how many different reviewers must promote (1–3). */
    approvals: Type.Optional(Type.Integer({ minimum: 1, maximum: 3 })),
    /** `review`: queue order. */
    priority: Type.Optional(Type.Union([Type.Literal('high'), Type.Literal('normal'), Type.Literal('low')])),
    /** `review`: how long people have, e.g. `30m`, `2h`, `1d`. */
    due: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,4}(m|h|d)$' })),
  },
  { additionalProperties: false },
);

export const PolicyFileSchema = Type.Object(
  { rules: Type.Array(PolicyRuleSchema, { minItems: 1, maxItems: MAX_RULES }) },
  { additionalProperties: false },
);

export type PolicyRule = Static<typeof PolicyRuleSchema>;
export type PolicyFile = Static<typeof PolicyFileSchema>;
export type PolicyAction = PolicyRule['action'];

export const PRIORITY_VALUES = { high: 1, normal: 0, low: -1 } as const;

/** One problem of a policy file: where (rule position from 1 and name), what, and for CEL the column. */
export interface PolicyProblem {
  /** 1-based position of the rule; null for the file as a whole. */
  readonly rule: number | null;
  readonly name: string | null;
  /** JSON Pointer of the offending value, e.g. `/rules/0/when`. */
  readonly path: string;
  readonly message: string;
  /** For an error in a `when` expression: 1-based line and column in the expression. */
  readonly line?: number;
  readonly column?: number;
}

const validateShape = compileValidator(PolicyFileSchema);

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `2h` → milliseconds. */
export function durationMs(due: string): number {
  const unit = due.slice(-1) as keyof typeof UNIT_MS;
  return Number(due.slice(0, -1)) * UNIT_MS[unit];
}

function ruleOf(file: unknown, path: string): { rule: number | null; name: string | null } {
  const match = /^\/rules\/(\d+)/.exec(path);
  if (!match) return { rule: null, name: null };
  const index = Number(match[1]);
  const rules = (file as { rules?: unknown[] } | null)?.rules;
  const name = (rules?.[index] as { name?: unknown } | undefined)?.name;
  return { rule: index + 1, name: typeof name === 'string' ? name : null };
}

/** The options a rule's action accepts, besides name, when and action. */
const OPTIONS_OF: Record<PolicyAction, readonly string[]> = {
  promote: ['sample'],
  reject: ['reason', 'sample'],
  review: ['approvals', 'priority', 'due'],
};

/**
 * The file's JSON shape and what the shape alone cannot say: unique names, options that fit the
 * action, a reason for every `reject` from `allowedReasons`. Every problem, never only the first.
 */
export function checkPolicyShape(
  file: unknown,
  allowedReasons: readonly string[],
): { ok: true; file: PolicyFile } | { ok: false; problems: PolicyProblem[] } {
  const shape = validateShape(file);
  const problems: PolicyProblem[] = shape.ok
    ? []
    : shape.violations.map((v) => ({ ...ruleOf(file, v.path), path: v.path, message: v.message }));
  // The checks beyond the shape run over every rule that is an object, so one run lists everything.
  const rules = (file as { rules?: unknown } | null)?.rules;
  const seen = new Set<string>();
  (Array.isArray(rules) ? rules : []).forEach((value, index) => {
    if (typeof value !== 'object' || value === null) return;
    const rule = value as Partial<PolicyRule>;
    const at = { rule: index + 1, name: typeof rule.name === 'string' ? rule.name : null };
    if (at.name !== null && seen.has(at.name))
      problems.push({ ...at, path: `/rules/${index}/name`, message: `the name "${at.name}" is used twice` });
    if (at.name !== null) seen.add(at.name);
    const allowed = typeof rule.action === 'string' ? OPTIONS_OF[rule.action] : undefined;
    if (!allowed) return;
    for (const option of ['reason', 'sample', 'approvals', 'priority', 'due'] as const) {
      if (rule[option] !== undefined && !allowed.includes(option))
        problems.push({
          ...at,
          path: `/rules/${index}/${option}`,
          message: `"${option}" is not an option of "${rule.action}" (it takes: ${allowed.join(', ')})`,
        });
    }
    if (rule.action === 'reject') {
      if (rule.reason === undefined)
        problems.push({ ...at, path: `/rules/${index}/reason`, message: 'a reject rule needs a reason' });
      else if (typeof rule.reason === 'string' && !allowedReasons.includes(rule.reason))
        problems.push({
          ...at,
          path: `/rules/${index}/reason`,
          message: `"${rule.reason}" is not a reject reason; one of: ${allowedReasons.join(', ')}`,
        });
    }
  });
  if (!shape.ok || problems.length > 0) return { ok: false, problems };
  return { ok: true, file: shape.value };
}
