// Retention, erasure and `media verify --repair` with the real api + worker processes on a real S3
// server (Ceph RGW, the rgw engine; a bucket of this file's own), each verified by listing the
// bucket. (Orphans are covered on fs in data-lifecycle.int.spec.ts: an S3 object's LastModified
// cannot be set back past `--grace`'s 1 h minimum.)
import { createClient, type FramedeskClient, type Submission } from '@framedesk/client';
import { loadSettings } from '@framedesk/config';
import { createStorage, type ObjectStorage } from '@framedesk/storage';
import {
  makePng,
  ReviewerClient,
  type Stack,
  startStack,
  startTestS3,
  type TestS3,
  waitUntil,
} from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './in-process';

const PASSWORD = 'a long reviewer password';
const cli = (env: Record<string, string>, args: string[], stdin = '') => runCli(args, env, stdin);

describe('retention, erasure and verify on S3 (RGW)', () => {
  let s3: TestS3;
  let bucket: string;
  let stack: Stack;
  let storage: ObjectStorage;
  let client: FramedeskClient;
  let reviewer: ReviewerClient;

  /** Every key the bucket holds for the submission, from S3's own listing. */
  const listed = async (id: string) => {
    const keys: string[] = [];
    for (const prefix of [`originals/${id}/`, `variants/${id}/`]) {
      let cursor: string | null = null;
      do {
        const page = await storage.list(bucket, { prefix, cursor });
        keys.push(...page.objects.map((o) => o.key));
        cursor = page.cursor;
      } while (cursor !== null);
    }
    return keys.sort();
  };
  const inReview = (id: string) =>
    [`originals/${id}/original.png`, `variants/${id}/preview.webp`, `variants/${id}/thumbnail.webp`].sort();
  const submit = (channel: string, title: string, api = client, agent = 'lifebot'): Promise<Submission> =>
    api.submitFrame({
      metadata: { agent_slug: agent, channel_slug: channel, date: '20260115', title },
      image: makePng(64, 48, { seed: title.length }),
    });
  const ready = (id: string, api = client) =>
    api.waitForStatus(id, ['needs_review'], { timeoutMs: 60_000, intervalMs: 200 });

  beforeAll(async () => {
    s3 = await startTestS3(['lifecycle']);
    bucket = s3.buckets['lifecycle']!;
    stack = await startStack({
      env: { ...s3.env, RETENTION_INTERVAL_SECONDS: '1' },
      config: (config) => {
        config.storage.vendor_originals_bucket = bucket;
      },
    });
    storage = createStorage(loadSettings(stack.env));
    const key = (
      await cli(stack.env, ['agent', 'create', 'lifebot', '--channel', 'purge-me', '--channel', 'keep', '--json'])
    ).json().api_key;
    client = createClient({ baseUrl: stack.apiUrl, apiKey: key });
    const created = await cli(
      stack.env,
      ['reviewer', 'create', 'rita@example.com', '--password-stdin', '--role', 'admin'],
      PASSWORD,
    );
    expect(created.code).toBe(0);
    reviewer = new ReviewerClient(stack.apiUrl);
    expect((await reviewer.login('rita@example.com', PASSWORD)).status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await s3?.close();
  });

  it(
    'retention purges a rejected frame’s objects from the bucket; a promoted one gains `public`',
    {
      timeout: 120_000,
    },
    async () => {
      const [rejected, promoted] = await Promise.all(['to reject', 'to promote'].map((t) => submit('purge-me', t)));
      for (const s of [rejected!, promoted!]) await ready(s.id);
      expect(await listed(rejected!.id)).toEqual(inReview(rejected!.id));
      const decide = (id: string, body: object) => reviewer.call('POST', `/review/submissions/${id}/decision`, body);
      expect((await decide(rejected!.id, { decision: 'reject', reason: 'Low quality' })).status).toBe(200);
      expect((await decide(promoted!.id, { decision: 'promote' })).status).toBe(200);
      await waitUntil('the promoted frame’s public variant', async () =>
        (await listed(promoted!.id)).includes(`variants/${promoted!.id}/public.webp`),
      );
      const link = (await client.getSubmission(promoted!.id)).variants['public']!;
      expect((await fetch(link)).status).toBe(200);

      const set = await cli(stack.env, ['channel', 'retention', 'set', 'purge-me', '--rejected', '0d', '--yes']);
      expect(set.code).toBe(0);
      await waitUntil('the rejected frame’s objects gone from the bucket', async () =>
        (await listed(rejected!.id)).length === 0 ? true : null,
      );
      expect((await client.getSubmission(rejected!.id)).purged_at).toEqual(expect.any(String));
      expect(await listed(promoted!.id)).toHaveLength(4);
    },
  );

  it('media erase --agent removes every object of its frames from the bucket', { timeout: 90_000 }, async () => {
    const key = (await cli(stack.env, ['agent', 'create', 'erasebot', '--channel', 'keep', '--json'])).json().api_key;
    const eraser = createClient({ baseUrl: stack.apiUrl, apiKey: key });
    const frames = await Promise.all(['one', 'two'].map((t) => submit('keep', t, eraser, 'erasebot')));
    for (const s of frames) await ready(s.id, eraser);
    for (const s of frames) expect(await listed(s.id)).toEqual(inReview(s.id));
    const erased = await cli(stack.env, ['media', 'erase', '--agent', 'erasebot', '--json']);
    expect(erased.code).toBe(0);
    expect(erased.json()).toMatchObject({ dry_run: false, submissions: 2, objects: 6 });
    for (const s of frames) expect(await listed(s.id)).toEqual([]);
  });

  it(
    'media verify finds an object deleted from the bucket; --repair renders it again',
    { timeout: 90_000 },
    async () => {
      const frame = await submit('keep', 'to damage');
      await ready(frame.id);
      await storage.delete(bucket, `variants/${frame.id}/preview.webp`);
      const found = await cli(stack.env, ['media', 'verify', '--json']);
      expect(found.code).toBe(1);
      expect(found.json()).toMatchObject({ missing_objects: 1, orphans: 0, orphans_checked: true });
      const repaired = await cli(stack.env, ['media', 'verify', '--repair', '--json']);
      expect(repaired.code, repaired.err.join('\n')).toBe(0);
      expect(repaired.json().repair).toMatchObject({ requeued: 1, orphans_deleted: 0 });
      await waitUntil('the variant rendered again into the bucket', async () =>
        (await listed(frame.id)).includes(`variants/${frame.id}/preview.webp`),
      );
      expect(await listed(frame.id)).toEqual(inReview(frame.id));
      expect((await cli(stack.env, ['media', 'verify'])).code).toBe(0);
    },
  );
});
