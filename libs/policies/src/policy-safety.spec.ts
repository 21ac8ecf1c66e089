import { describe, expect, it } from 'vitest';
import { evaluatePolicy } from './index';
import { compiled, policyInput as input, problems } from './policy.test-support';

describe('matches() on RE2', () => {
  it('runs a pattern that backtracks exponentially in linear time, in both call forms', () => {
    const policy = compiled([
      { name: 'aa', when: 'frame.metadata.title.matches("^(a|aa)+$")', action: 'reject', reason: 'Other' },
      { name: 'global', when: 'matches(frame.metadata.title, "^(a|aa)+c$")', action: 'review' },
      { name: 'rest', when: 'true', action: 'promote' },
    ]);
    // 45 characters: JavaScript's RegExp takes hours on this; RE2 a fraction of a millisecond.
    const crafted = `${'a'.repeat(44)}b`;
    expect(evaluatePolicy(policy, input({}, crafted))).toMatchObject({ rule: 'rest', action: 'promote' });
    expect(evaluatePolicy(policy, input({}, 'aaaa'))).toMatchObject({ rule: 'aa', action: 'reject' });
    expect(evaluatePolicy(policy, input({}, 'aaac'))).toMatchObject({ rule: 'global', action: 'review' });
    // Inside a comprehension too.
    const within = compiled([
      { name: 'words', when: 'frame.metadata.title.split(" ").exists(w, w.matches("^(a|aa)+$"))', action: 'review' },
    ]);
    expect(evaluatePolicy(within, input({}, `x ${crafted}`))).toMatchObject({ rule: null, action: null });
  });

  it('refuses at set time a pattern RE2 does not accept or that does not compile, naming the rule and column', () => {
    expect(
      problems([
        { name: 'behind', when: 'frame.metadata.title.matches("(?<=a)b")', action: 'review' },
        { name: 'backref', when: 'matches(frame.metadata.title, "(a)\\\\1")', action: 'review' },
        { name: 'open', when: 'frame.metadata.title.matches("(")', action: 'review' },
        { name: 'fine', when: 'frame.metadata.title.matches("^[a-z]+$")', action: 'review' },
      ]),
    ).toEqual([
      expect.stringMatching(
        /^rule 1 "behind": \/rules\/0\/when \(line 1, column 30\): the regular expression "\(\?<=a\)b" is not accepted by RE2/,
      ),
      expect.stringMatching(/^rule 2 "backref": \/rules\/1\/when \(line 1, column 31\): .*not accepted by RE2.*escape/),
      expect.stringMatching(/^rule 3 "open": \/rules\/2\/when \(line 1, column 30\): .*missing closing \)/),
    ]);
  });

  it('a type error in a matches call reads as matches, not as the RE2 function behind it', () => {
    expect(problems([{ name: 'int', when: 'frame.media.width.matches("1")', action: 'review' }])).toEqual([
      expect.stringMatching(/int\.matches\(string\)/),
    ]);
  });
});

describe('the cost budget', () => {
  it('refuses nested comprehensions at set time', () => {
    const nested = 'frame.metadata.caption.split("").exists(a, frame.metadata.caption.split("").exists(b, a == b))';
    expect(problems([{ name: 'nested', when: nested, action: 'review' }])).toEqual([
      expect.stringMatching(/^rule 1 "nested": .*nested 2 deep; at most 1/),
    ]);
    // One level, or one after another, is fine.
    expect(
      problems([
        { name: 'flat', when: 'frame.metadata.caption.split(" ").map(w, w).exists(w, w == "x")', action: 'review' },
      ]),
    ).toEqual([]);
  });

  it('a rule past the time budget sends the frame to people, named, and no later rule decides', () => {
    const policy = compiled([
      { name: 'slow', when: 'frame.metadata.title.matches("x")', action: 'review' },
      { name: 'rest', when: 'true', action: 'promote' },
    ]);
    let now = 0;
    // Each reading of the clock is a second later: the first rule is past any budget.
    const clock = () => (now += 1_000);
    expect(evaluatePolicy(policy, input(), { timeMs: 50, clock })).toMatchObject({
      rule: 'slow',
      action: 'review',
      held: 'over budget',
      failures: [{ rule: 'slow', kind: 'budget' }],
    });
  });

  it('a string longer than the budget is never evaluated: people decide', () => {
    const policy = compiled([{ name: 'rest', when: 'true', action: 'promote' }]);
    const long = input({}, 'x'.repeat(2_001));
    expect(evaluatePolicy(policy, long)).toMatchObject({
      rule: null,
      action: 'review',
      held: expect.stringMatching(/^over budget: frame.metadata.title/),
    });
  });

  it('evaluation errors are listed per rule for the caller to count, not swallowed', () => {
    const policy = compiled([
      { name: 'near', when: 'signals.nearest_rejected < 4', action: 'reject', reason: 'Other' },
      { name: 'rest', when: 'true', action: 'promote' },
    ]);
    expect(evaluatePolicy(policy, input())).toMatchObject({
      rule: 'rest',
      action: 'promote',
      failures: [{ rule: 'near', kind: 'error', message: expect.any(String) }],
    });
  });
});

describe('a missing score fails closed', () => {
  it('a rule reading a score the scorer did not send holds a later promote for people', () => {
    const policy = compiled([
      { name: 'nsfw', when: 'scores.nudity > 0.8', action: 'reject', reason: 'Other' },
      { name: 'rest', when: 'true', action: 'promote' },
    ]);
    expect(evaluatePolicy(policy, input({ scores: { violence: 0.1 } }))).toMatchObject({
      rule: 'rest',
      action: 'review',
      suggestion: 'promote',
      held: 'score missing',
    });
    // A rule that asks with has() decides itself what an absent score means.
    const guarded = compiled([
      { name: 'nsfw', when: 'has(scores.nudity) && scores.nudity > 0.8', action: 'reject', reason: 'Other' },
      { name: 'rest', when: 'true', action: 'promote' },
    ]);
    expect(evaluatePolicy(guarded, input({ scores: { violence: 0.1 } }))).toMatchObject({
      rule: 'rest',
      action: 'promote',
    });
  });

  it('"reads scores" comes from the parsed condition, not from the word in its text', () => {
    const policy = compiled([
      { name: 'word', when: 'frame.metadata.title == "scores"', action: 'review' },
      { name: 'rest', when: 'true', action: 'promote' },
    ]);
    expect(policy.readsScores).toBe(false);
    expect(evaluatePolicy(policy, input())).toMatchObject({ rule: 'rest', action: 'promote' });
    expect(compiled([{ name: 'key', when: '"nudity" in scores', action: 'review' }]).readsScores).toBe(true);
  });
});
