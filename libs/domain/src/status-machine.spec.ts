import { describe, expect, it } from 'vitest';
import { canTransition, isTerminal, SUBMISSION_STATUSES, sourcesOf, type SubmissionStatus } from './status-machine';

// The expected machine, written out pair by pair so a change to TRANSITIONS must be made twice.
const ALLOWED = new Set<string>([
  'received>media_processing',
  'received>failed',
  'waiting_for_upload>media_processing',
  'waiting_for_upload>failed',
  'media_processing>needs_review',
  'media_processing>promoted',
  'media_processing>failed',
  'needs_review>promoted',
  'needs_review>rejected',
  'needs_review>failed',
  'failed>received',
  'failed>media_processing',
]);

describe('status machine', () => {
  const pairs = SUBMISSION_STATUSES.flatMap((from) => SUBMISSION_STATUSES.map((to) => [from, to] as const));

  it.each(pairs)('%s -> %s', (from, to) => {
    expect(canTransition(from, to)).toBe(ALLOWED.has(`${from}>${to}`));
  });

  it('walks all 49 pairs', () => {
    expect(pairs).toHaveLength(49);
  });

  it('lets only reviewers decide and only the system process', () => {
    expect(canTransition('needs_review', 'promoted', 'reviewer')).toBe(true);
    expect(canTransition('needs_review', 'promoted', 'system')).toBe(false);
    expect(canTransition('media_processing', 'promoted', 'system')).toBe(true);
    expect(canTransition('media_processing', 'promoted', 'reviewer')).toBe(false);
    expect(canTransition('received', 'media_processing', 'agent')).toBe(false);
  });

  it('answers the compare-and-set sources for a target', () => {
    expect(sourcesOf('failed', 'system').sort()).toEqual(
      (['media_processing', 'needs_review', 'received', 'waiting_for_upload'] as SubmissionStatus[]).sort(),
    );
    expect(sourcesOf('promoted', 'reviewer')).toEqual(['needs_review']);
  });

  it('never moves out of promoted or rejected', () => {
    for (const to of SUBMISSION_STATUSES) {
      expect(canTransition('promoted', to)).toBe(false);
      expect(canTransition('rejected', to)).toBe(false);
    }
    expect(isTerminal('failed')).toBe(true);
    expect(isTerminal('needs_review')).toBe(false);
  });
});
