import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { SubmissionDetail } from '../api/types';
import { problemText } from './PolicyParts';
import { dueText, PolicyChips } from './PolicyMeta';
import { WhyHere } from './WhyHere';

const routed = {
  approvals: { required: 2, approved: 1 },
  priority: 'high' as const,
  due_at: null,
  policy: {
    rule: 'urgent',
    action: 'review' as const,
    signals: { blank: false, luminance: 0.41234, luminance_spread: 0.2, sharpness: 12.5, nearest_rejected: 3 },
    scores: { quality: 0.875 },
  },
};

describe('review policies on a frame', () => {
  afterEach(cleanup);

  it('the chips read "1 of 2 approvals", the priority and the rule that sent the frame here', () => {
    render(<PolicyChips item={routed} />);
    expect(screen.getByText('1 of 2 approvals')).toBeTruthy();
    expect(screen.getByText('high priority')).toBeTruthy();
    expect(screen.getByText('rule urgent')).toBeTruthy();
  });

  it('Why here names the rule and lists the signals and scores it read, in words', () => {
    render(<WhyHere submission={routed as unknown as SubmissionDetail} />);
    const panel = screen.getByRole('region', { name: 'Why here' });
    expect(within(panel).getByText('Rule “urgent” matched: it sends the frame to people.')).toBeTruthy();
    expect(panel.querySelector('dl.signals')?.textContent).toBe(
      'BlanknoLuminance0.412Luminance spread0.2Sharpness12.5Nearest promoted framenone nearNearest rejected frame3 bits apartScore quality0.875',
    );
  });

  it('says when a sample would have decided, when no rule matched and when no policy routed the frame', () => {
    const sample = { ...routed, policy: { ...routed.policy, sampled: true, suggestion: 'reject' as const } };
    const { rerender } = render(<WhyHere submission={sample as unknown as SubmissionDetail} />);
    expect(screen.getByText(/this frame is a sample: the rule would have rejected it, people decide/)).toBeTruthy();
    const none = { ...routed, policy: { rule: null, action: null, signals: null } };
    rerender(<WhyHere submission={none as unknown as SubmissionDetail} />);
    expect(screen.getByText('No rule matched: people decide.')).toBeTruthy();
    rerender(<WhyHere submission={{ ...routed, approvals: null, policy: null } as unknown as SubmissionDetail} />);
    expect(screen.getByText('No review policy routed this frame.')).toBeTruthy();
  });

  it('due and overdue read as time left or time past', () => {
    const now = Date.parse('2026-11-27T12:00:00Z');
    expect(dueText('2026-11-27T14:00:00Z', now)).toBe('due in 2 h');
    expect(dueText('2026-11-27T11:45:00Z', now)).toBe('overdue by 15 min');
  });

  it("a compile problem names the rule, the field and the column; other problems keep the server's words", () => {
    const cel = {
      pointer: '/rules/1/when',
      detail: 'rule 2 "blank": …',
      rule: 2,
      name: 'blank',
      message: 'Unexpected token: EOF',
      line: 1,
      column: 17,
    };
    expect(problemText(cel)).toBe('Rule 2 “blank” (when, line 1 column 17): Unexpected token: EOF');
    expect(problemText({ pointer: '', detail: 'Not JSON: bad', rule: null })).toBe('Not JSON: bad');
  });
});
