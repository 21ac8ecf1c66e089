// The scoring hook on a provider's webhook (issue 43): Stream retries a webhook that did not
// answer in time, and each retry must not post the video's poster to the scoring service again.
// The API, which finishes the video, counts the call and the routing in the worker's metrics.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { policyAdmin } from '@framedesk/policies';
import { makePng } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CloudflareVideoHarness, startCloudflareVideoHarness } from './video-harness';

const SECRET = 'whsec_scoring';

describe('the scoring hook on a Stream webhook', () => {
  let h: CloudflareVideoHarness;
  let scorer: Server;
  let thumbnails: Server;
  let calls = 0;
  let thumbnailFetches = 0;
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });

  beforeAll(async () => {
    // Answers once `release` is called: the webhook's retries arrive while the first scoring runs.
    scorer = createServer((req, res) => {
      calls++;
      req.resume();
      void held.then(() => res.setHeader('Content-Type', 'application/json').end('{"scores":{"nsfw":0.9}}'));
    });
    await new Promise<void>((resolve) => scorer.listen(0, '127.0.0.1', resolve));
    // The video's thumbnail, counted: each delivery of the webhook fetches it before it is scored.
    const png = makePng(320, 180, { seed: 11 });
    thumbnails = createServer((req, res) => {
      thumbnailFetches++;
      res.writeHead(200, { 'Content-Type': 'image/png' }).end(png);
    });
    await new Promise<void>((resolve) => thumbnails.listen(0, '127.0.0.1', resolve));
    h = await startCloudflareVideoHarness(SECRET, {
      SCORING_URL: `http://127.0.0.1:${(scorer.address() as AddressInfo).port}/score`,
      SCORING_TIMEOUT_MS: '120000',
    });
  });
  afterAll(async () => {
    release();
    await h?.close();
    for (const server of [scorer, thumbnails]) {
      server?.closeAllConnections();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    }
  });

  it('a webhook retried twice while its video is scored asks the scoring service once; the API counts it', async () => {
    const seeded = await h.seedUpload({ byteSize: 1000, protocol: 'basic' });
    const uid = (await h.db.repos.mediaUploads.findById(seeded.uploadId))!.providerRef!;
    // Set before any video of the channel is routed: the API's cache reads it on first use.
    await policyAdmin(h.db).set(
      'news',
      { rules: [{ name: 'nsfw', when: 'scores.nsfw > 0.5', action: 'reject', reason: 'Low quality' }] },
      'test',
    );
    const ready = {
      ...h.fake.readyVideo(uid, { duration: 3, width: 320, height: 180, thumbnail: Buffer.alloc(0) }),
      thumbnail: `http://127.0.0.1:${(thumbnails.address() as AddressInfo).port}/${uid}.png`,
    };
    const first = h.notify(ready);
    await expect.poll(() => calls, { timeout: 60_000 }).toBe(1);
    // Stream retries (the first delivery has not answered): both get as far as the thumbnail.
    const retries = [h.notify(ready), h.notify(ready)];
    await expect.poll(() => thumbnailFetches, { timeout: 60_000 }).toBe(3);
    release();
    const answers = await Promise.all([first, ...retries].map(async (r) => (await r).json()));
    expect(answers.map((a) => (a as { outcome: string }).outcome).sort()).toEqual(['rejected', 'skipped', 'skipped']);
    expect(calls).toBe(1);
    expect(await h.statusOf(seeded.submissionId)).toMatchObject({ status: 'rejected', reviewRule: 'nsfw' });
    const scored = (await h.db.repos.submissions.events(seeded.submissionId)).filter((e) => e.type === 'scored');
    expect(scored.map((e) => e.data)).toEqual([{ ok: true, scores: { nsfw: 0.9 } }]);
    // A later replay reads the recorded answer, never the scoring service.
    await h.notify(ready);
    expect(calls).toBe(1);

    const metrics = await (await fetch(`${h.url}/metrics`)).text();
    expect(metrics).toMatch(/framedesk_scoring_requests_total\{outcome="ok"[^}]*\} 1\n/);
    expect(metrics).toMatch(/framedesk_policy_routed_total\{action="reject",sampled="false"[^}]*\} [1-9]/);
  });
});
