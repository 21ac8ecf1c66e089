// Feedback pinned to a moment (issue 45, docs/video.md): a reviewer's rejection and internal note on
// a video carry time-coded items, validated against the video, and the agent reads them exactly
// through GET, the feedback endpoint and MCP.
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './harness';
import { type ReviewerClient, seedNeedsReview, signIn } from './review-harness';

const PASSWORD = 'a-long-enough-password';

let api: TestApi;
let key: string;
let rita: ReviewerClient;

beforeAll(async () => {
  api = await startTestApi();
  key = await api.createAgent('film-bot', ['films']);
  rita = await signIn(api, 'rita@example.com', PASSWORD, { role: 'reviewer', channels: ['films'] });
}, 60_000);
afterAll(async () => {
  await api?.stop();
});

/** A 10-second video of `film-bot`, waiting for review. */
const seedVideo = () =>
  seedNeedsReview(api.deps.db, {
    agent: 'film-bot',
    channel: 'films',
    mediaType: 'video',
    routing: { durationMs: 10_000, width: 320, height: 240 },
  });

/** As a reviewer sends them, and as they are stored and shown (rounded, trimmed). */
const MOMENTS = [
  { at: 1.23456, label: ' logo flickers ' },
  { start: 4, end: 6.5, region: { x: 0.1, y: 0.2, width: 0.30000001, height: 0.4 }, label: 'black frames' },
];
const MOMENTS_NORMALISED = [
  { at: 1.235, label: 'logo flickers' },
  { start: 4, end: 6.5, label: 'black frames', region: { x: 0.1, y: 0.2, width: 0.3, height: 0.4 } },
];

const reject = (id: string, moments: unknown) =>
  rita.call('POST', `/review/submissions/${id}/decision`, { decision: 'reject', reason: 'Low quality', moments });

describe('time-coded feedback on a video', () => {
  it('reaches the agent exactly through GET, the feedback endpoint and MCP get_feedback / get_submission', async () => {
    const id = await seedVideo();
    const decided = await reject(id, MOMENTS);
    expect(decided.status).toBe(200);
    const detail = (await decided.json()) as { review: unknown; events: { to: string; moments?: unknown }[] };
    expect(detail.review).toMatchObject({ moments: MOMENTS_NORMALISED });
    expect(detail.events.find((e) => e.to === 'rejected')?.moments).toEqual(MOMENTS_NORMALISED);

    const got = await api.call('GET', `/v1/frame-submissions/${id}`, { key });
    expect(got.status).toBe(200);
    expect(got.body.review).toMatchObject({ decided_by: 'person', regions: [], moments: MOMENTS_NORMALISED });
    const feedback = await api.call('GET', '/v1/agents/film-bot/feedback?since=2026-01-01', { key });
    expect(feedback.body.rejections).toEqual([expect.objectContaining({ id, moments: MOMENTS_NORMALISED })]);

    const client = new Client({ name: 'moments-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', api.url), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    );
    try {
      const viaMcp = await client.callTool({ name: 'get_feedback', arguments: { since: '2026-01-01' } });
      expect(viaMcp.structuredContent).toEqual(feedback.body);
      const submission = await client.callTool({ name: 'get_submission', arguments: { submission_id: id } });
      expect((submission.structuredContent as { review: { moments: unknown } }).review.moments).toEqual(
        MOMENTS_NORMALISED,
      );
    } finally {
      await client.close();
    }
    expect(api.contractViolations()).toEqual([]);
  });

  it('refuses a time outside the video, an end before its start, too many items and moments on an image (422 naming the field)', async () => {
    const id = await seedVideo();
    const cases: [unknown, string][] = [
      [[{ at: 10.5, label: 'after the end' }], '/moments/0/at'],
      [
        [
          { at: 1, label: 'ok' },
          { start: 2, end: 12, label: 'past the end' },
        ],
        '/moments/1/end',
      ],
      [[{ start: 5, end: 4, label: 'backwards' }], '/moments/0/end'],
      [[{ at: -1, label: 'before the start' }], '/moments/0/at'],
      [[{ at: 1, label: '' }], '/moments/0/label'],
      [[{ at: 1, label: 'x', region: { x: 0.9, y: 0, width: 0.2, height: 0.1 } }], '/moments/0/region'],
      [Array.from({ length: 21 }, (_, i) => ({ at: i / 10, label: `item ${i}` })), '/moments'],
    ];
    for (const [moments, pointer] of cases) {
      const refused = await reject(id, moments);
      expect(refused.status, JSON.stringify(moments)).toBe(422);
      const problem = (await refused.json()) as { code: string; errors: { pointer: string }[] };
      expect(problem.code).toBe('validation_failed');
      expect(problem.errors.map((e) => e.pointer)).toEqual([pointer]);
    }
    // Nothing was decided: the video still waits.
    expect((await api.deps.db.repos.submissions.findById(id))?.status).toBe('needs_review');

    const image = await seedNeedsReview(api.deps.db, { agent: 'film-bot', channel: 'films' });
    const onImage = await reject(image, [{ at: 1, label: 'no time in a picture' }]);
    expect(onImage.status).toBe(422);
    expect(((await onImage.json()) as { errors: { pointer: string }[] }).errors[0]?.pointer).toBe('/moments');
  });

  it('an internal note on a video carries time-coded items, validated the same way', async () => {
    const id = await seedVideo();
    const added = await rita.call('POST', `/review/submissions/${id}/notes`, {
      body: 'Check 4–6.5 s',
      moments: MOMENTS,
    });
    expect(added.status).toBe(201);
    expect(await added.json()).toMatchObject({ body: 'Check 4–6.5 s', moments: MOMENTS_NORMALISED });
    const listed = await rita.call('GET', `/review/submissions/${id}/notes`);
    expect(((await listed.json()) as { notes: { moments: unknown }[] }).notes[0]?.moments).toEqual(MOMENTS_NORMALISED);
    const refused = await rita.call('POST', `/review/submissions/${id}/notes`, {
      body: 'late',
      moments: [{ at: 11, label: 'after the end' }],
    });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { errors: { pointer: string }[] }).errors[0]?.pointer).toBe('/moments/0/at');
  });

  it('a video revises an earlier video: the revision stacks it with its player address and its time-coded items', async () => {
    const earlier = await seedVideo();
    await api.deps.db.repos.mediaObjects.upsert({
      submissionId: earlier,
      kind: 'original',
      name: 'original',
      bucket: 'originals',
      key: `${earlier}/original.mp4`,
      contentType: 'video/mp4',
      byteSize: 1000,
    });
    const openUpload = (revisionOf: string) =>
      api.call('POST', '/v1/media-uploads', {
        key,
        headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({
          agent_slug: 'film-bot',
          channel_slug: 'films',
          media_type: 'video',
          filename: 'take-2.mp4',
          content_type: 'video/mp4',
          byte_size: 1000,
          metadata: { title: 'Take 2', revision_of: revisionOf },
        }),
      });
    // Not decided yet: refused, naming the field, and nothing is stored.
    const early = await openUpload(earlier);
    expect([early.status, early.body.code]).toEqual([422, 'invalid_revision']);
    expect((early.body.errors as { pointer: string }[])[0]?.pointer).toBe('/metadata/revision_of');

    expect((await reject(earlier, MOMENTS)).status).toBe(200);
    const opened = await openUpload(earlier);
    expect(opened.status).toBe(201);
    const revision = opened.body.submission_id as string;
    const got = await api.call('GET', `/v1/frame-submissions/${revision}`, { key });
    expect(got.body.revision_of).toBe(earlier);

    const detail = await rita.call('GET', `/review/submissions/${revision}`);
    const body = (await detail.json()) as { revision_of: string; versions: Record<string, unknown>[] };
    expect(body.revision_of).toBe(earlier);
    expect(body.versions.find((v) => v['id'] === earlier)).toMatchObject({
      media_type: 'video',
      video_url: `/review/submissions/${earlier}/original`,
      duration_ms: 10_000,
      review: { decision: 'rejected', moments: MOMENTS_NORMALISED },
    });
    expect(api.contractViolations()).toEqual([]);
  });
});
