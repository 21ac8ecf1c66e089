// What the policy specs share: a frame to evaluate and a policy compiled from bare rules.
import { compilePolicy, formatProblem, type PolicyInput } from './index';

export const REASONS = ['Low quality', 'Duplicate', 'Other'];

/** An image frame with measured signals and a trusted agent; `title` replaces its metadata's. */
export const policyInput = (over: Partial<PolicyInput> = {}, title = 'A title'): PolicyInput => ({
  id: 'frame-1',
  frame: {
    agent: 'bot',
    channel: 'news',
    metadata: { title, caption: '', external_ref: '', click_zones: 2 },
    media: { type: 'image', width: 1280, height: 720, bytes: 50_000 },
  },
  signals: { blank: false, luminance: 120.5, luminance_spread: 40, sharpness: 300 },
  agent: { decisions: 10, promoted: 9, rejected: 1, promoted_share: 0.9, rejected_share: 0.1 },
  scores: null,
  ...over,
});

/** The policy of `rules`; throws with the problems when it does not compile. */
export function compiled(rules: unknown[]) {
  const result = compilePolicy({ rules }, REASONS);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.policy;
}

/** What compiling `rules` reports, one line a problem (none when it compiles). */
export function problems(rules: unknown[]): string[] {
  const result = compilePolicy({ rules }, REASONS);
  return result.ok ? [] : result.problems.map(formatProblem);
}
