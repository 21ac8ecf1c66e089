import type { ASTNode } from '@marcbachmann/cel-js';
import { RE2_MATCHES } from './cel-regex';

/** The comprehension macros: each runs its body once per element of a list or map. */
const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

/**
 * A comprehension may not run inside another's body: over a 2,000-character caption split into
 * characters, two nested are 4 million steps (docs/policies.md, "Cost budget").
 */
export const MAX_COMPREHENSION_NESTING = 1;

type Node = ASTNode & { readonly meta?: { readonly alternate?: unknown; readonly macro?: unknown } };

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && 'op' in value && 'args' in value;
}

/** The nodes directly below `node` (its operands and, for a macro, its expansion). */
function children(node: Node): Node[] {
  const out: Node[] = [];
  const seen = new Set<object>();
  const add = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || seen.has(value)) return;
    seen.add(value);
    if (isNode(value)) out.push(value);
    else if (Array.isArray(value)) value.forEach(add);
    else Object.values(value).forEach(add);
  };
  if (typeof node.args === 'object') add(node.args);
  return out;
}

function walk(root: Node, visit: (node: Node) => void): void {
  const seen = new Set<Node>();
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    visit(node);
    stack.push(...children(node));
    const alternate = node.meta?.alternate;
    if (isNode(alternate)) stack.push(alternate);
  }
}

function callName(node: Node): string | null {
  if (node.op !== 'call' && node.op !== 'rcall') return null;
  const name = (node.args as unknown[])[0];
  return typeof name === 'string' ? name : null;
}

/**
 * Points every `matches` call of a parsed condition, `s.matches(p)` and `matches(s, p)`, at the RE2
 * implementation (cel-regex.ts): the library's own runs JavaScript's backtracking RegExp, and it
 * cannot be replaced in place (an overload of the same signature is refused).
 */
export function useRe2(ast: ASTNode): void {
  walk(ast as Node, (node) => {
    if (callName(node) === 'matches') (node.args as unknown[])[0] = RE2_MATCHES;
  });
}

/** What a condition reads and costs, from its parsed form (never from its text). */
export interface ConditionFacts {
  /** Whether it reads the variable `scores` at all. */
  readonly readsScores: boolean;
  /** Whether it reads the variable `agent` (the agent's record of human decisions) at all. */
  readonly readsAgent: boolean;
  /** The deepest nesting of comprehensions in a body (0: none, 1: one, not nested). */
  readonly comprehensionNesting: number;
  /** The constant patterns given to `matches`, with their offsets in the expression. */
  readonly patterns: readonly { readonly pattern: string; readonly start: number }[];
}

function nesting(node: Node): number {
  const name = callName(node);
  const kids = children(node);
  if (node.op === 'rcall' && name !== null && COMPREHENSIONS.has(name)) {
    // The receiver runs once; the body (and the expansion) runs per element.
    const [receiver, ...body] = kids;
    return Math.max(receiver ? nesting(receiver) : 0, 1 + Math.max(0, ...body.map(nesting)));
  }
  return Math.max(0, ...kids.map(nesting));
}

export function conditionFacts(ast: ASTNode): ConditionFacts {
  let readsScores = false;
  let readsAgent = false;
  const patterns: { pattern: string; start: number }[] = [];
  walk(ast as Node, (node) => {
    if (node.op === 'id' && node.args === 'scores') readsScores = true;
    if (node.op === 'id' && node.args === 'agent') readsAgent = true;
    const name = callName(node);
    if (name !== 'matches' && name !== RE2_MATCHES) return;
    const args = node.op === 'rcall' ? (node.args as [string, Node, Node[]])[2] : (node.args as [string, Node[]])[1];
    const pattern = args.at(-1);
    if (pattern?.op === 'value' && typeof pattern.args === 'string')
      patterns.push({ pattern: pattern.args, start: pattern.start });
  });
  return { readsScores, readsAgent, comprehensionNesting: nesting(ast as Node), patterns };
}
