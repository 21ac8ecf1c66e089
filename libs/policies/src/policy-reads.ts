import type { ASTNode } from '@marcbachmann/cel-js';
import type { CompiledPolicy } from './compile';

/** The variables a condition can read (docs/policies.md). */
export type PolicyVariable = 'frame' | 'signals' | 'agent' | 'scores';

function readsIn(node: unknown, name: PolicyVariable, seen: Set<object>): boolean {
  if (typeof node !== 'object' || node === null || seen.has(node)) return false;
  seen.add(node);
  const n = node as Partial<ASTNode> & Record<string, unknown>;
  if (n.op === 'id' && n.args === name) return true;
  return Object.values(n).some((value) => readsIn(value, name, seen));
}

const agentReaders = new WeakMap<CompiledPolicy, boolean>();

/**
 * Whether any rule of the policy reads `agent` (its record of human decisions), decided from the
 * parsed conditions, never from their text: only then does the worker read the agent's record
 * (an image's cost must not grow with its agent's history, issue 43). Remembered per compiled policy.
 */
export function policyReadsAgent(policy: CompiledPolicy): boolean {
  let reads = agentReaders.get(policy);
  if (reads === undefined) {
    reads = policy.rules.some((r) => readsIn((r.condition as { ast?: unknown }).ast, 'agent', new Set()));
    agentReaders.set(policy, reads);
  }
  return reads;
}
