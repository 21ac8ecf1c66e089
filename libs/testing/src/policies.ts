/**
 * A realistic five-rule review policy, from the examples of docs/policies.md: a blank render
 * (rejected, 5 % sampled), a near-copy of a rejected frame, a trusted agent (promoted, 10 %
 * sampled), a scores-free priority rule and a rule with a due time and two approvals. Scores-free:
 * no rule asks the scoring hook. The worker's round-trip spec and the pipeline benchmark run with it.
 */
export const FIVE_RULE_POLICY = {
  rules: [
    { name: 'blank', when: 'signals.blank', action: 'reject', reason: 'Low quality', sample: 0.05 },
    {
      name: 'copy-of-rejected',
      when: 'has(signals.nearest_rejected) && signals.nearest_rejected <= 4 && !(has(signals.nearest_promoted) && signals.nearest_promoted <= 4)',
      action: 'reject',
      reason: 'Duplicate',
    },
    {
      name: 'trusted-agent',
      when: 'agent.decisions >= 50 && agent.promoted_share >= 0.98 && !signals.blank',
      action: 'promote',
      sample: 0.1,
    },
    {
      name: 'breaking',
      when: 'frame.metadata.title.startsWith("BREAKING") || frame.metadata.caption.contains("breaking")',
      action: 'review',
      priority: 'high',
    },
    { name: 'newcomer', when: 'agent.decisions < 10', action: 'review', approvals: 2, priority: 'low', due: '4h' },
  ],
} as const;
