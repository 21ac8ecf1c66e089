import { QUEUE_NAMES } from '@framedesk/queues';
import { describe, expect, it } from 'vitest';
import { parseQueueSelection } from './runtime';

describe('parseQueueSelection (WORKER_QUEUES)', () => {
  it('all, or nothing, means every queue', () => {
    expect(parseQueueSelection('all').queues).toEqual([...QUEUE_NAMES]);
    expect(parseQueueSelection(' ').queues).toEqual([...QUEUE_NAMES]);
  });

  it('selects the listed queues and reports unknown names', () => {
    expect(parseQueueSelection('maintenance, image-processing')).toEqual({
      queues: ['image-processing', 'maintenance'],
      unknown: [],
    });
    expect(parseQueueSelection('image-processing,images').unknown).toEqual(['images']);
  });
});
