import { describe, expect, it } from 'vitest';
import { compilePolicy } from './compile';
import { policyReadsAgent } from './policy-reads';

const compiled = (when: string) => {
  const result = compilePolicy({ rules: [{ name: 'r', when, action: 'review' }] }, []);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.policy;
};

describe('policyReadsAgent', () => {
  it('is decided from the parsed condition: the variable agent, not the word', () => {
    expect(policyReadsAgent(compiled('agent.decisions < 10'))).toBe(true);
    expect(policyReadsAgent(compiled('signals.blank || (has(agent.promoted) && agent.promoted_share > 0.5)'))).toBe(
      true,
    );
    expect(policyReadsAgent(compiled('frame.agent == "agent"'))).toBe(false);
    expect(policyReadsAgent(compiled('frame.metadata.title.contains("agent.decisions")'))).toBe(false);
    expect(policyReadsAgent(compiled('signals.blank'))).toBe(false);
  });
});
