import { describe, expect, it } from 'vitest';
import { compilePolicy, evaluatePolicy, sampleDraw } from './index';
import { compiled, policyInput as input, REASONS } from './policy.test-support';

describe('compilePolicy', () => {
  it('lists every problem with the rule position, name and, for CEL, the column', () => {
    const result = compilePolicy(
      {
        rules: [
          { name: 'syntax', when: 'signals.blank &&', action: 'reject', reason: 'Low quality' },
          { name: 'unknown', when: 'foo.bar > 1', action: 'review' },
          { name: 'field', when: 'signals.blnk', action: 'review' },
          { name: 'notbool', when: 'signals.luminance', action: 'review' },
          { name: 'reason', when: 'true', action: 'reject', reason: 'Ugly' },
          { name: 'option', when: 'true', action: 'promote', approvals: 2 },
          { name: 'option', when: 'true', action: 'review', due: '2 hours' },
        ],
      },
      REASONS,
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const byRule = (n: number) => result.problems.filter((p) => p.rule === n);
    expect(byRule(1)[0]).toMatchObject({ name: 'syntax', path: '/rules/0/when', line: 1, column: 17 });
    expect(byRule(2)[0]).toMatchObject({ name: 'unknown', column: 1 });
    expect(byRule(2)[0]!.message).toMatch(/Unknown variable: foo/);
    expect(byRule(3)[0]).toMatchObject({ name: 'field', column: 9 });
    expect(byRule(4)[0]!.message).toMatch(/not a bool/);
    expect(byRule(5)[0]!.message).toMatch(/not a reject reason/);
    expect(byRule(6)[0]!.message).toMatch(/"approvals" is not an option of "promote"/);
    expect(byRule(7).map((p) => p.path)).toContain('/rules/6/due');
  });

  it('refuses a duplicate name, an unknown option and an empty file', () => {
    const dup = compilePolicy(
      {
        rules: [
          { name: 'a', when: 'true', action: 'review' },
          { name: 'a', when: 'true', action: 'review', colour: 'red' },
        ],
      },
      REASONS,
    );
    expect(dup.ok).toBe(false);
    const empty = compilePolicy({ rules: [] }, REASONS);
    expect(empty.ok).toBe(false);
    const notJson = compilePolicy('rules', REASONS);
    expect(notJson.ok).toBe(false);
  });
});

describe('evaluatePolicy', () => {
  const policy = compiled([
    { name: 'blank', when: 'signals.blank', action: 'reject', reason: 'Low quality' },
    { name: 'copy', when: 'signals.nearest_rejected <= 4', action: 'reject', reason: 'Duplicate' },
    {
      name: 'urgent',
      when: 'frame.metadata.title.contains("breaking")',
      action: 'review',
      approvals: 2,
      priority: 'high',
      due: '2h',
    },
    { name: 'trusted', when: 'agent.decisions >= 5 && agent.promoted_share >= 0.9', action: 'promote' },
  ]);

  it('the first matching rule decides, with the values it read', () => {
    const blank = evaluatePolicy(
      policy,
      input({ signals: { blank: true, luminance: 0, luminance_spread: 0, sharpness: 0 } }),
    );
    expect(blank).toMatchObject({ rule: 'blank', action: 'reject', reason: 'Low quality', signals: { blank: true } });
    expect(evaluatePolicy(policy, input())).toMatchObject({ rule: 'trusted', action: 'promote' });
  });

  it('an absent signal does not match; a present one does', () => {
    const far = evaluatePolicy(
      policy,
      input({ signals: { blank: false, luminance: 1, luminance_spread: 9, sharpness: 9, nearest_rejected: 12 } }),
    );
    expect(far.rule).toBe('trusted');
    const near = evaluatePolicy(
      policy,
      input({ signals: { blank: false, luminance: 1, luminance_spread: 9, sharpness: 9, nearest_rejected: 3 } }),
    );
    expect(near).toMatchObject({ rule: 'copy', action: 'reject', reason: 'Duplicate' });
  });

  it('review carries approvals, priority and due', () => {
    const urgent = evaluatePolicy(
      policy,
      input({ frame: { ...input().frame, metadata: { ...input().frame.metadata, title: 'breaking news' } } }),
    );
    expect(urgent).toMatchObject({ rule: 'urgent', action: 'review', approvals: 2, priority: 1, dueInMs: 7_200_000 });
  });

  it('no rule matched: no action', () => {
    const newcomer = evaluatePolicy(
      policy,
      input({ agent: { decisions: 0, promoted: 0, rejected: 0, promoted_share: 0, rejected_share: 0 } }),
    );
    expect(newcomer).toMatchObject({ rule: null, action: null });
  });

  it('samples a share of matches, fixed by the frame id, marked with the suggestion', () => {
    const sampled = compiled([{ name: 'all', when: 'true', action: 'promote', sample: 0.5 }]);
    const outcomes = Array.from({ length: 400 }, (_, i) => evaluatePolicy(sampled, input({ id: `f${i}` })));
    const held = outcomes.filter((o) => o.sampled);
    expect(held.length).toBeGreaterThan(150);
    expect(held.length).toBeLessThan(250);
    expect(held[0]).toMatchObject({ action: 'review', suggestion: 'promote', rule: 'all' });
    expect(evaluatePolicy(sampled, input({ id: 'f1' }))).toEqual(evaluatePolicy(sampled, input({ id: 'f1' })));
    expect(sampleDraw('f1', 'all')).toBe(sampleDraw('f1', 'all'));
  });

  it('scores decide when present; without them a rule needing one does not match and later decisions wait for people', () => {
    const scored = compiled([
      { name: 'nsfw', when: 'scores.nudity > 0.8', action: 'reject', reason: 'Other' },
      { name: 'rest', when: 'true', action: 'promote' },
    ]);
    expect(evaluatePolicy(scored, input({ scores: { nudity: 0.95 } }))).toMatchObject({
      rule: 'nsfw',
      action: 'reject',
    });
    expect(evaluatePolicy(scored, input({ scores: { nudity: 0.1 } }))).toMatchObject({
      rule: 'rest',
      action: 'promote',
    });
    // A score the service did not send fails closed, as a scorer outage does (docs/policies.md).
    expect(evaluatePolicy(scored, input({ scores: {} }))).toMatchObject({
      rule: 'rest',
      action: 'review',
      suggestion: 'promote',
      held: 'score missing',
    });
    expect(evaluatePolicy(scored, input({ scores: null }))).toMatchObject({
      rule: 'rest',
      action: 'review',
      suggestion: 'promote',
      held: 'scores unavailable',
    });
    const only = compiled([{ name: 'nsfw', when: 'scores.nudity > 0.8', action: 'reject', reason: 'Other' }]);
    expect(evaluatePolicy(only, input({ scores: null }))).toMatchObject({ rule: null, action: 'review' });
  });
});
