// A year of data, against the real api + worker processes: retention set from the CLI and
// purged by the worker's maintenance job, an erasure request, `media verify` and its repair, and
// a restore drill (pg_dump + a copy of the storage into a new database and storage root).
import { existsSync } from 'node:fs';
import { mkdir, rm, unlink, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type FramedeskClient, type Submission } from '@framedesk/client';
import { loadSettings, readProjectConfig } from '@framedesk/config';
import { newId } from '@framedesk/domain';
import {
  backUp,
  makePng,
  restore,
  ReviewerClient,
  type Stack,
  startSlowRedis,
  startStack,
  waitUntil,
} from '@framedesk/testing';
import { checkMediaSample } from '../src/doctor/media-check';
import { runCli } from './in-process';

const BUCKET = 'framedesk-originals';
const PASSWORD = 'a long reviewer password';

const cli = (env: Record<string, string>, args: string[], stdin = '') => runCli(args, env, stdin);

describe('retention, erasure, verify and a restore drill', () => {
  let stack: Stack;
  let key: string;
  let client: FramedeskClient;
  let reviewer: ReviewerClient;
  const file = (root: string, key: string) => join(root, 'storage', BUCKET, key);
  // [original, public, thumbnail, preview]; `public` exists once a frame is promoted (issue 39).
  const stored = (id: string, root = stack.storageRoot) =>
    [`originals/${id}/original.png`, ...['public', 'thumbnail', 'preview'].map((v) => `variants/${id}/${v}.webp`)].map(
      (k) => existsSync(file(root, k)),
    );
  const query = (sql: string, params: unknown[] = []) => stack.database.query(sql, params);
  async function submit(channel: string, title: string, api = client, agent = 'lifebot'): Promise<Submission> {
    return api.submitFrame({
      metadata: {
        agent_slug: agent,
        channel_slug: channel,
        date: '20260115',
        title,
        caption: `${title}: Jane Doe at 12 Main St`,
        click_zones: [{ x: 0.1, y: 0.1, width: 0.3, height: 0.3, url: 'https://jane.example/me', label: 'Jane' }],
      },
      image: makePng(64, 48, { seed: title.length }),
    });
  }
  const ready = (id: string, api = client) =>
    api.waitForStatus(id, ['needs_review'], { timeoutMs: 60_000, intervalMs: 200 });

  beforeAll(async () => {
    // The purge runs every second here (default 300 s); only channels given a retention lose media.
    stack = await startStack({ env: { RETENTION_INTERVAL_SECONDS: '1' } });
    key = (
      await cli(stack.env, ['agent', 'create', 'lifebot', '--channel', 'purge-me', '--channel', 'keep', '--json'])
    ).json().api_key;
    client = createClient({ baseUrl: stack.apiUrl, apiKey: key });
    expect(
      (
        await cli(
          stack.env,
          ['reviewer', 'create', 'rita@example.com', '--password-stdin', '--role', 'admin'],
          PASSWORD,
        )
      ).code,
    ).toBe(0);
    reviewer = new ReviewerClient(stack.apiUrl);
    expect((await reviewer.login('rita@example.com', PASSWORD)).status).toBe(201);
  }, 120_000);
  afterAll(() => stack?.stop());

  it(
    'a channel with --rejected 0d loses a rejected frame’s objects at the next maintenance run; promoted and waiting frames keep theirs',
    { timeout: 120_000 },
    async () => {
      const [rejected, promoted, waiting] = await Promise.all(
        ['to reject', 'to promote', 'waits'].map((t) => submit('purge-me', t)),
      );
      for (const s of [rejected!, promoted!, waiting!]) await ready(s.id);
      const before = await client.getSubmission(rejected!.id);
      const link = before.variants['preview']!;
      expect((await fetch(link)).status).toBe(200);
      const decide = (id: string, body: object) => reviewer.call('POST', `/review/submissions/${id}/decision`, body);
      expect((await decide(rejected!.id, { decision: 'reject', reason: 'Low quality' })).status).toBe(200);
      expect((await decide(promoted!.id, { decision: 'promote' })).status).toBe(200);

      const set = await cli(stack.env, [
        'channel', 'retention', 'set', 'purge-me', '--rejected', '0d', '--failed', '0d', '--promoted', 'never', '--yes', '--json',
      ]); // prettier-ignore
      expect(set.code).toBe(0);
      expect(set.json()).toMatchObject({
        channel: 'purge-me',
        rejected: { retention: '0d', source: 'channel' },
        failed: { retention: '0d', source: 'channel' },
        promoted: { retention: 'never', source: 'channel' },
      });
      for (const bad of [
        ['purge-me', '--rejected', '30 days', '--yes'],
        ['purge-me', '--yes'],
        ['no-such-channel', '--failed', '1d', '--yes'],
      ]) {
        const refused = await cli(stack.env, ['channel', 'retention', 'set', ...bad]);
        expect({ bad, code: refused.code, lines: refused.err.length }).toEqual({ bad, code: 2, lines: 1 });
      }
      const shown = (await cli(stack.env, ['channel', 'retention', 'show', '--json'])).json();
      expect(shown.find((c: { channel: string }) => c.channel === 'keep')).toMatchObject({
        rejected: { retention: 'never', source: 'default' },
      });
      const [audit] = await query(
        "SELECT e.actor, e.data FROM account_events e JOIN channels c ON c.id = e.subject_id WHERE c.slug = 'purge-me' AND e.action = 'retention_set'",
      );
      expect(audit).toMatchObject({ actor: expect.stringMatching(/^cli/), data: { after: { rejected: '0d' } } });

      const purged = await waitUntil('the rejected frame purged', async () => {
        const s = await client.getSubmission(rejected!.id);
        return s.purged_at ? s : null;
      });
      // purged_at is written first (the frame can no longer be retried), then the objects go.
      await waitUntil('the rejected frame’s objects deleted', async () => stored(rejected!.id).every((s) => !s));
      expect(purged).toMatchObject({
        status: 'rejected',
        variants: {},
        title: 'to reject',
        review: { decision: 'rejected', reason: 'Low quality' },
      });
      expect(Date.parse(purged.purged_at!)).toBeGreaterThan(Date.parse(before.updated_at));
      expect((await fetch(link)).status).toBe(404);
      const detail = (await (await reviewer.call('GET', `/review/submissions/${rejected!.id}`)).json()) as Record<
        string,
        unknown
      >;
      expect(detail).toMatchObject({ purged_at: purged.purged_at, image_url: null, thumbnail_url: null, variants: {} });
      // Its `public` is made by the job the promotion enqueued.
      await waitUntil('the promoted frame’s public variant', async () => stored(promoted!.id).every(Boolean));

      // Everything final in the channel at 0d: the promoted frame goes too, the one waiting for review never.
      const promote = await cli(stack.env, ['channel', 'retention', 'set', 'purge-me', '--promoted', '0d', '--yes']);
      expect(promote.out.join('\n')).toContain('would purge now: 0 rejected, 0 failed, 1 promoted');
      await waitUntil('the promoted frame purged', async () => (await client.getSubmission(promoted!.id)).purged_at);
      await waitUntil('the promoted frame’s objects deleted', async () => stored(promoted!.id).every((s) => !s));
      expect(stored(waiting!.id)).toEqual([true, false, true, true]);
      expect(await client.getSubmission(waiting!.id)).toMatchObject({ status: 'needs_review', purged_at: null });
    },
  );

  it(
    'media erase --agent: --dry-run counts and changes nothing; then media and personal fields are gone, and it is recorded',
    { timeout: 90_000 },
    async () => {
      const eraseKey = (await cli(stack.env, ['agent', 'create', 'erasebot', '--channel', 'keep', '--json'])).json()
        .api_key;
      const eraser = createClient({ baseUrl: stack.apiUrl, apiKey: eraseKey });
      const frames = await Promise.all(['one', 'two'].map((t) => submit('keep', t, eraser, 'erasebot')));
      for (const s of frames) await ready(s.id, eraser);

      const dry = await cli(stack.env, ['media', 'erase', '--agent', 'erasebot', '--dry-run', '--json']);
      expect(dry.code).toBe(0);
      // Each in review: its original, thumbnail and preview (no public before promotion).
      expect(dry.json()).toMatchObject({ dry_run: true, submissions: 2, objects: 6, provider_videos: 0 });
      for (const s of frames) {
        expect(stored(s.id)).toEqual([true, false, true, true]);
        expect(await eraser.getSubmission(s.id)).toMatchObject({ title: s.title, purged_at: null });
      }
      expect(await query("SELECT 1 FROM account_events WHERE action = 'media_erased'")).toHaveLength(0);

      const erased = await cli(stack.env, ['media', 'erase', '--agent', 'erasebot', '--json']);
      expect(erased.code).toBe(0);
      expect(erased.json()).toMatchObject({ dry_run: false, submissions: 2, objects: 6, stopped: 2 });
      for (const s of frames) {
        expect(stored(s.id)).toEqual([false, false, false, false]);
        const after = await eraser.getSubmission(s.id);
        expect(after).toMatchObject({
          id: s.id,
          agent_slug: 'erasebot',
          channel_slug: 'keep',
          date: '20260115',
          title: null,
          caption: null,
          click_zones: [],
          variants: {},
          status: 'failed',
          failure: { code: 'erased' },
          purged_at: expect.any(String),
        });
        expect(JSON.stringify(after)).not.toMatch(/Jane|Main St/);
      }
      const [record] = await query("SELECT actor, data FROM account_events WHERE action = 'media_erased'");
      expect(record).toMatchObject({
        actor: expect.stringMatching(/^cli/),
        data: { request: { agent: 'erasebot' }, submissions: 2, objects: 6 },
      });
      const usage = await cli(stack.env, ['media', 'erase', '--submission', frames[0]!.id, '--agent', 'erasebot']);
      expect(usage.code).toBe(2);
    },
  );

  it('media verify finds a deleted object and a planted orphan; --repair fixes both', { timeout: 90_000 }, async () => {
    const frame = await submit('keep', 'to damage');
    await ready(frame.id);
    await unlink(file(stack.storageRoot, `variants/${frame.id}/preview.webp`));
    const orphan = file(stack.storageRoot, `variants/${newId('submission')}/preview.webp`);
    await mkdir(dirname(orphan), { recursive: true });
    await writeFile(orphan, Buffer.alloc(1234, 7));
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    await utimes(orphan, twoDaysAgo, twoDaysAgo);

    const found = await cli(stack.env, ['media', 'verify', '--json']);
    expect(found.code).toBe(1);
    const report = found.json();
    expect(report).toMatchObject({ missing_objects: 1, orphans: 1, orphan_bytes: 1234, orphans_checked: true });
    expect(report.problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'missing_object', submission_id: frame.id, name: 'preview', repairable: true }),
        expect.objectContaining({ type: 'orphan', byte_size: 1234 }),
      ]),
    );
    // doctor's bounded sample sees both here (an installation smaller than the sample is seen whole).
    const sample = await checkMediaSample(loadSettings(stack.env), readProjectConfig(stack.env['FRAMEDESK_CONFIG']!));
    expect(sample).toMatchObject({ status: 'warn', message: expect.stringMatching(/1 missing objects.*1 orphans/) });
    const channelOnly = (await cli(stack.env, ['media', 'verify', '--channel', 'keep', '--json'])).json();
    expect(channelOnly).toMatchObject({ missing_objects: 1, orphans_checked: false });

    // Through a Redis whose connections take 500 ms to open: the repair waits for its connection
    // before it re-enqueues (it once enqueued at once, and a slow connection refused it: exit 1).
    const slowRedis = await startSlowRedis(500);
    const repaired = await cli({ ...stack.env, REDIS_URL: slowRedis.url }, [
      'media',
      'verify',
      '--repair',
      '--json',
    ]).finally(() => slowRedis.close());
    expect(repaired.code, repaired.err.join('\n')).toBe(0);
    expect(repaired.json().repair).toEqual({
      requeued: 1,
      orphans_deleted: 1,
      orphan_bytes_deleted: 1234,
      purged_media_deleted: 0,
    });
    expect(existsSync(orphan)).toBe(false);
    // In review: preview rendered again, and still no public.
    await waitUntil('the variant rendered again', async () => stored(frame.id)[3]);
    expect(stored(frame.id)).toEqual([true, false, true, true]);
    const clean = await cli(stack.env, ['media', 'verify']);
    expect(clean.code).toBe(0);
    expect(clean.out.join('\n')).toContain('0 missing objects');
    expect(
      await checkMediaSample(loadSettings(stack.env), readProjectConfig(stack.env['FRAMEDESK_CONFIG']!)),
    ).toMatchObject({ status: 'ok' });
  });

  it(
    'restore drill: a pg_dump and a copy of the storage run as a new installation; nothing is missing and waiting frames reach needs_review',
    { timeout: 180_000 },
    async () => {
      // Frames caught waiting by the backup: no worker runs while they arrive.
      await Promise.all(stack.workers.map((w) => w.stop()));
      const waiting = await Promise.all(['late one', 'late two'].map((t) => submit('keep', t)));
      for (const s of waiting) expect(await client.getSubmission(s.id)).toMatchObject({ status: 'received' });
      const purgedBefore = (await query('SELECT count(*)::int AS n FROM submissions WHERE purged_at IS NOT NULL'))[0].n;

      const backup = await backUp(stack.database.url, join(stack.storageRoot, 'storage'));
      const restored = await restore(backup);
      await rm(dirname(backup.dump), { recursive: true, force: true });
      const second = await startStack({
        database: restored.database,
        storageRoot: restored.storageRoot,
        env: { RECONCILE_AFTER_SECONDS: '1', RECONCILE_INTERVAL_SECONDS: '1' },
      });
      try {
        const verified = await cli(second.env, ['media', 'verify', '--json']);
        expect(verified.json()).toMatchObject({ missing_objects: 0, missing_variants: 0, orphans: 0 });
        expect(verified.code).toBe(0);
        // Redis of the new installation is empty: the reconciler finds the waiting frames in PostgreSQL.
        const api = createClient({ baseUrl: second.apiUrl, apiKey: key });
        for (const s of waiting) expect((await ready(s.id, api)).status).toBe('needs_review');
        const db = new pg.Client({ connectionString: second.database.url });
        await db.connect();
        const purgedAfter = (await db.query('SELECT count(*)::int AS n FROM submissions WHERE purged_at IS NOT NULL'))
          .rows[0].n;
        await db.end();
        expect(purgedAfter).toBe(purgedBefore);
        expect((await cli(second.env, ['media', 'verify', '--json'])).json()).toMatchObject({ missing_objects: 0 });
      } finally {
        await second.stop();
      }
    },
  );
});
