import type { CompiledPolicy } from './compile';

/**
 * Whether any rule of the policy reads `agent` (its record of human decisions), decided from the
 * parsed conditions (cel-analysis `conditionFacts`), never from their text: only then does the
 * worker read the agent's record (an image's cost must not grow with its agent's history, issue 43).
 */
export function policyReadsAgent(policy: CompiledPolicy): boolean {
  return policy.readsAgent;
}
