import { describe, expect, it } from 'vitest';
import { compiled } from './policy.test-support';

const readsAgent = (when: string) => compiled([{ name: 'r', when, action: 'review' }]).readsAgent;

describe('CompiledPolicy.readsAgent', () => {
  it('is decided from the parsed condition: the variable agent, not the word', () => {
    expect(readsAgent('agent.decisions < 10')).toBe(true);
    expect(readsAgent('signals.blank || (has(agent.promoted) && agent.promoted_share > 0.5)')).toBe(true);
    expect(readsAgent('frame.agent == "agent"')).toBe(false);
    expect(readsAgent('frame.metadata.title.contains("agent.decisions")')).toBe(false);
    expect(readsAgent('signals.blank')).toBe(false);
  });
});
