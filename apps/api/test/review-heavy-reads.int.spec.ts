// The review API's policy simulation (issue 43, point 10) runs within a per-process concurrency
// limit: beyond it, 503 busy with Retry-After; a client that goes away gives its place back. A
// place is held by a request whose body has not all arrived (the place is taken before the body
// is read).
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReviewerClient, type ReviewHarness, startReviewHarness } from './review-harness';

const PASSWORD = 'correct horse battery';
const CHANNEL = 'heavy-desk';
const PATH = `/review/channels/${CHANNEL}/policy/simulate`;
const POLICY = { rules: [{ name: 'wide', when: 'frame.media.width >= 0', action: 'promote' }] };

describe('review API: policy simulations within a concurrency limit', () => {
  let h: ReviewHarness;
  let ada: ReviewerClient;

  beforeAll(async () => {
    h = await startReviewHarness({ SIMULATE_CONCURRENT: '1' });
    ada = await h.signIn('ada@example.com', PASSWORD);
    await h.seedChannel(CHANNEL);
  });
  afterAll(async () => h?.close());

  const simulate = async () => (await ada.call('POST', PATH, { policy: POLICY, since: '7d' })).status;

  it('a simulation while one runs is 503 busy with Retry-After; the place comes back when that client goes away', async () => {
    expect(await simulate()).toBe(200);
    // A simulation whose body is still on its way holds the one place.
    const held = httpRequest(`${h.url}${PATH}`, {
      method: 'POST',
      headers: {
        cookie: ada.cookie,
        'x-csrf-token': ada.csrf,
        'content-type': 'application/json',
        'content-length': '1000',
      },
    });
    held.on('error', () => undefined);
    held.write('{"policy": ');
    held.flushHeaders();
    await expect.poll(simulate, { timeout: 60_000 }).toBe(503);
    const refused = await ada.call('POST', PATH, { policy: POLICY, since: '7d' });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toMatchObject({ code: 'busy', status: 503 });
    held.destroy();
    await expect.poll(simulate, { timeout: 60_000 }).toBe(200);
  });
});
