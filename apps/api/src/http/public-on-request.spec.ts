import { createSemaphore } from '@framedesk/access';
import { createLogger } from '@framedesk/observability';
import type { PublicAvailability, PublicVariantService } from '@framedesk/submissions';
import { describe, expect, it } from 'vitest';
import { IN_REVIEW_RETRY_SECONDS, publicOnRequest, QUEUED_RETRY_SECONDS } from './public-on-request';

function setUp(
  availability: PublicAvailability,
  make: PublicVariantService['make'] = async () => ({ outcome: 'made' }),
) {
  const enqueued: string[] = [];
  const semaphore = createSemaphore(1, 0);
  const answer = publicOnRequest({
    publicVariant: { availability: async () => availability, make },
    queues: { enqueue: async (_name, payload) => void enqueued.push(payload.submissionId) },
    semaphore,
    logger: createLogger({ name: 'test', level: 'silent' }),
  });
  return { answer, enqueued, semaphore };
}

describe('publicOnRequest', () => {
  it('makes a promoted frame’s public on the request', async () => {
    const { answer, enqueued } = setUp('now');
    expect(await answer('sub_1')).toEqual({ kind: 'ready' });
    expect(enqueued).toEqual([]);
  });

  it('answers 202 (Retry-After) for a frame in review, and never for a rejected one', async () => {
    expect(await setUp('later').answer('sub_1')).toMatchObject({
      kind: 'pending',
      retryAfterSeconds: IN_REVIEW_RETRY_SECONDS,
    });
    expect(await setUp('never').answer('sub_1')).toEqual({ kind: 'never' });
  });

  it('with every maker busy: the job is made sure of and the answer is 202', async () => {
    let finish = () => {};
    const { answer, enqueued } = setUp(
      'now',
      () => new Promise((resolve) => (finish = () => resolve({ outcome: 'made' }))),
    );
    const first = answer('sub_1');
    await new Promise((r) => setTimeout(r, 10));
    expect(await answer('sub_2')).toMatchObject({ kind: 'pending', retryAfterSeconds: QUEUED_RETRY_SECONDS });
    expect(enqueued).toEqual(['sub_2']);
    finish();
    expect(await first).toEqual({ kind: 'ready' });
  });

  it('a failure while making is a 202 with the job enqueued, never a 500', async () => {
    const { answer, enqueued, semaphore } = setUp('now', () => Promise.reject(new Error('storage down')));
    expect(await answer('sub_3')).toMatchObject({ kind: 'pending', retryAfterSeconds: QUEUED_RETRY_SECONDS });
    expect(enqueued).toEqual(['sub_3']);
    expect(semaphore.busy).toBe(0);
  });
});
