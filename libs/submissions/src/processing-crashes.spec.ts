import { describe, expect, it } from 'vitest';
import { blameCrashes } from './processing-crashes';

describe('blameCrashes (docs/reliability.md, "How crashes are blamed")', () => {
  it('strikes a frame only for a crash it ran in alone', () => {
    expect(blameCrashes([{ worker: 'w1', peers: 1 }])).toEqual({ strikes: 1, suspect: false });
    expect(
      blameCrashes([
        { worker: 'w1', peers: 1 },
        { worker: 'w2', peers: 1 },
      ]),
    ).toEqual({ strikes: 2, suspect: false });
  });

  it('makes a frame that ran beside others a suspect, without a strike', () => {
    expect(blameCrashes([{ worker: 'w1', peers: 4 }])).toEqual({ strikes: 0, suspect: true });
    expect(
      blameCrashes([
        { worker: 'w1', peers: 4 },
        { worker: 'w2', peers: 1 },
      ]),
    ).toEqual({ strikes: 1, suspect: true });
  });

  it('has nothing to say of a frame that left no run behind (read, never started)', () => {
    expect(blameCrashes([])).toEqual({ strikes: 0, suspect: false });
  });
});
