import { describe, expect, it } from 'vitest';
import {
  ACTOR_TYPES,
  type ActorType,
  canTransition,
  isTerminal,
  SUBMISSION_STATUSES,
  sourcesOf,
  type SubmissionStatus,
} from './status-machine';

// The expected machine, written out cell by cell so a change to TRANSITIONS must be made twice.
// Rows are `from`, columns are `to`; a cell names who may make the move: S the system,
// R a reviewer, . nobody.
const TABLE = `
                    received  waiting_for_upload  media_processing  needs_review  promoted  rejected  failed
received               .              .                  S               .            .         .        S
waiting_for_upload     .              .                  S               .            .         .        S
media_processing       .              .                  .               S            S         S        S
needs_review           .              .                  .               .            R         R        S
promoted               .              .                  .               .            .         .        .
rejected               .              .                  .               .            .         .        .
failed                 R              .                  R               .            .         .        .
`;
const ACTOR_OF_CELL: Record<string, ActorType | null> = { S: 'system', R: 'reviewer', '.': null };
const [HEADER, ...ROWS] = TABLE.trim()
  .split('\n')
  .map((line) => line.trim().split(/\s+/));
const CELLS = ROWS.flatMap(([from, ...cells]) =>
  cells.map((cell, column) => ({
    from: from as SubmissionStatus,
    to: HEADER![column] as SubmissionStatus,
    actor: ACTOR_OF_CELL[cell!],
  })),
);

describe('status machine', () => {
  it('has exactly the statuses of the table, and the table has 7 × 7 = 49 cells', () => {
    expect([...SUBMISSION_STATUSES].sort()).toEqual([...HEADER!].sort());
    expect(ROWS.map(([from]) => from)).toEqual(HEADER);
    expect(ROWS.every((row) => row.length === 8)).toBe(true);
    expect(CELLS).toHaveLength(49);
    expect(CELLS.every((c) => c.actor !== undefined)).toBe(true);
  });

  it.each(CELLS)('$from -> $to: $actor', ({ from, to, actor }) => {
    expect(canTransition(from, to)).toBe(actor !== null);
    for (const who of ACTOR_TYPES) expect(canTransition(from, to, who), who).toBe(who === actor);
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
