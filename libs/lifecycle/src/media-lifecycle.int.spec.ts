// Retention purge and erasure against the real PostgreSQL, fs storage and a fake of Cloudflare
// Stream's HTTP API (the one third party here): batches, resumption, the rate limit, what is never
// touched, and what an erasure leaves of a row.
import type { ObjectStorage } from '@framedesk/storage';
import { describe, expect, it } from 'vitest';
import { saveFingerprint } from '@framedesk/submissions';
import {
  agentId,
  db,
  erasure,
  fake,
  purge,
  seed,
  seedEach,
  seedReplayableResponse,
  setRetention,
  storage,
  stored,
  useMediaLifecycle,
} from './media-lifecycle.test-support';

useMediaLifecycle();
describe('retention purge', () => {
  it('purges rejected and failed media past the channel retention, keeps promoted, never touches frames still moving', async () => {
    const rejected = await seed('purge-a', 'rejected');
    const failed = await seed('purge-a', 'failed');
    const promoted = await seed('purge-a', 'promoted');
    const kept = await seedEach(
      (['received', 'media_processing', 'needs_review', 'waiting_for_upload'] as const).map(
        (status) => () => seed('purge-a', status),
      ),
    );
    const otherChannel = await seed('purge-b', 'rejected'); // its channel keeps media (the default: never)
    await setRetention('purge-a', { rejected: '0d', failed: '0d', promoted: 'never' });

    const report = await purge().run({ maxMs: 60_000 });
    expect(report).toMatchObject({ purged: 2, objects: 6, complete: true, channels: { 'purge-a': 2 } });
    expect(await stored([...rejected.keys, ...failed.keys])).toBe(0);
    expect(await stored(promoted.keys)).toBe(promoted.keys.length);
    for (const frame of [...kept, otherChannel]) expect(await stored(frame.keys)).toBe(frame.keys.length);

    const tombstone = (await db.repos.submissions.findById(rejected.id))!;
    expect(tombstone).toMatchObject({ status: 'rejected', purgedAt: expect.any(Date), agentId });
    expect(await db.repos.mediaObjects.listForSubmission(rejected.id)).toEqual([]);
    const events = await db.repos.submissions.events(rejected.id);
    expect(events.at(-1)).toMatchObject({ type: 'media_purged', fromStatus: 'rejected', toStatus: 'rejected' });
    for (const frame of kept) expect((await db.repos.submissions.findById(frame.id))!.purgedAt).toBeNull();

    // Nothing left past retention: a second run purges nothing.
    expect((await purge().run({ maxMs: 60_000 })).purged).toBe(0);
  });

  it('keeps media younger than the retention', async () => {
    const frame = await seed('purge-young', 'rejected');
    await setRetention('purge-young', { rejected: '30d' });
    expect((await purge().run({ maxMs: 60_000 })).purged).toBe(0);
    expect(await stored(frame.keys)).toBe(frame.keys.length);
  });

  it("deletes the provider's copy of a video: Cloudflare Stream's DELETE /accounts/{account_id}/stream/{identifier}", async () => {
    const video = await seed('purge-video', 'rejected', { cloudflare: true });
    expect(fake.videos.has(video.uid!)).toBe(true);
    await setRetention('purge-video', { rejected: '0d' });
    const report = await purge().run({ maxMs: 60_000 });
    expect(report).toMatchObject({ purged: 1, providerVideos: 1, objects: 1 });
    const deletes = fake.requests.filter((r) => r.method === 'DELETE');
    expect(deletes.map((r) => r.path)).toEqual([`/client/v4/accounts/${fake.accountId}/stream/${video.uid}`]);
    expect(deletes[0]!.headers.authorization).toBe(`Bearer ${fake.apiToken}`);
    expect(fake.videos.has(video.uid!)).toBe(false);
    expect(await db.repos.mediaObjects.listForSubmission(video.id)).toEqual([]);
  });

  it('works in batches, and a run that fails half-way is finished by the next one', async () => {
    const frames = await seedEach([1, 2, 3, 4, 5].map(() => () => seed('purge-batches', 'failed')));
    await setRetention('purge-batches', { failed: '0d' });
    let deletes = 0;
    const flaky: ObjectStorage = {
      ...storage,
      async delete(bucket, key) {
        if (++deletes === 8) throw new Error('storage went away');
        return storage.delete(bucket, key);
      },
    };
    await expect(purge({ batchSize: 2, storage: flaky }).run({ maxMs: 60_000 })).rejects.toThrow(/went away/);
    const purgedAfterFailure = (
      await Promise.all(frames.map(async (f) => (await db.repos.submissions.findById(f.id))!.purgedAt))
    ).filter(Boolean).length;
    // The first batch is done; the second was marked (before any deletion) and failed half-way.
    expect(purgedAfterFailure).toBe(4);
    const holding = await Promise.all(frames.map((f) => db.repos.mediaObjects.listForSubmission(f.id)));
    expect(holding.map((rows) => rows.length)).toEqual([0, 0, 3, 3, 3]);

    // The next run finishes the marked batch first, then purges the fifth frame.
    const report = await purge({ batchSize: 2, storage: flaky }).run({ maxMs: 60_000 });
    // Nine deletions: the object the failed run had deleted already is deleted again (harmless).
    expect(report).toMatchObject({ purged: 1, batches: 1, objects: 9, complete: true });
    for (const frame of frames) expect(await db.repos.mediaObjects.listForSubmission(frame.id)).toEqual([]);
    expect(await stored(frames.flatMap((f) => f.keys))).toBe(0);
    for (const frame of frames) {
      const purges = (await db.repos.submissions.events(frame.id)).filter((e) => e.type === 'media_purged');
      expect(purges).toHaveLength(1);
    }
  });

  it('keeps to its rate limit, and stops at its time limit to be resumed', async () => {
    const frames = await seedEach([1, 2, 3].map(() => () => seed('purge-rate', 'rejected')));
    await setRetention('purge-rate', { rejected: '0d' });
    let now = 0;
    const clock = {
      now: () => now,
      // Callers wake at the time they asked for, whoever else is sleeping.
      sleep: async (ms: number) => void (now = Math.max(now, now + ms)),
    };
    const stopped = await purge({ batchSize: 1, clock }).run({ maxMs: 0 });
    expect(stopped).toMatchObject({ purged: 0, complete: false });
    const report = await purge({ deletesPerSecond: 4, clock }).run({ maxMs: 60_000 });
    expect(report.objects).toBe(9);
    // Nine deletions at four a second: the last may start 2 s after the first, no sooner.
    expect(now).toBeGreaterThanOrEqual(2_000);
    expect(await stored(frames.flatMap((f) => f.keys))).toBe(0);
  });
});

describe('erasure', () => {
  it('counts first and changes nothing; then deletes media, blanks personal fields and records who, when and how many', async () => {
    const agent = await db.repos.agents.create('erase-me');
    const personal = {
      title: 'Jane at home',
      caption: 'Jane Doe, 12 Main St',
      click_zones: [{ x: 0, y: 0, width: 0.5, height: 0.5, url: 'https://jane.example', label: 'Jane' }],
      external_ref: 'ref-42',
    };
    const rejected = await seed('erase-ch', 'rejected', { agent: agent.id, metadata: personal });
    const waiting = await seed('erase-ch', 'needs_review', { agent: agent.id, metadata: personal });
    const video = await seed('erase-ch', 'promoted', { agent: agent.id, metadata: personal, cloudflare: true });
    const bystander = await seed('erase-ch', 'rejected', { metadata: personal }); // another agent's
    await saveFingerprint(db, rejected.id, 12345n);
    const apiKeyId = await seedReplayableResponse(agent.id, {
      prefix: 'fd_live_erase',
      key: 'k1',
      status: 202,
      body: { id: rejected.id, ...personal },
    });

    const dpo = erasure();
    expect(await dpo.count({ agentSlug: 'erase-me' })).toEqual({
      submissions: 3,
      objects: 7,
      bytes: expect.any(Number),
      providerVideos: 1,
    });
    expect(await stored([...rejected.keys, ...waiting.keys, ...video.keys])).toBe(7);
    expect((await db.repos.submissions.findById(rejected.id))!.title).toBe('Jane at home');

    const report = await dpo.erase({ agentSlug: 'erase-me' });
    expect(report).toMatchObject({ submissions: 3, objects: 7, providerVideos: 1, stopped: 1 });
    expect(await stored([...rejected.keys, ...waiting.keys, ...video.keys])).toBe(0);
    expect(fake.videos.has(video.uid!)).toBe(false);
    for (const id of [rejected.id, waiting.id, video.id]) {
      const row = (await db.repos.submissions.findById(id))!;
      expect(row).toMatchObject({ title: null, metadata: { external_ref: 'ref-42' }, purgedAt: expect.any(Date) });
      expect(row.metadata).not.toHaveProperty('caption');
      expect(row.metadata).not.toHaveProperty('click_zones');
      expect(JSON.stringify(row)).not.toContain('Jane');
      expect((await db.repos.submissions.events(id)).at(-1)).toMatchObject({ type: 'erased', actorId: 'cli:dpo' });
    }
    // The frame waiting for review is failed first, so no reviewer or worker brings it back.
    expect(await db.repos.submissions.findById(waiting.id)).toMatchObject({ status: 'failed', failureCode: 'erased' });
    expect((await db.repos.mediaUploads.findBySubmission(video.id))!.filename).toBe('');
    expect(await db.repos.fingerprints.find(rejected.id)).toBeNull();
    expect(await db.repos.idempotency.find(apiKeyId, 'k1')).toBeNull();
    const audit = await db.repos.accounts.events('agent', agent.id);
    expect(audit.map((e) => e.action)).toEqual(['media_erasure_requested', 'media_erasure_progress', 'media_erased']);
    expect(audit.at(-1)).toMatchObject({
      action: 'media_erased',
      actor: 'cli:dpo',
      data: expect.objectContaining({
        request: { agent: 'erase-me' },
        submissions: 3,
        objects: 7,
        provider_videos: 1,
      }),
    });
    // Another agent's frame in the same channel is untouched; asking again finds nothing left.
    expect(await stored(bystander.keys)).toBe(bystander.keys.length);
    expect((await dpo.erase({ agentSlug: 'erase-me' })).submissions).toBe(0);
  });

  it('erases only what was sent before --before, and one submission by id', async () => {
    const agent = await db.repos.agents.create('erase-dated');
    const older = await seed('erase-dated', 'promoted', { agent: agent.id });
    await new Promise((r) => setTimeout(r, 20));
    const before = new Date();
    const newer = await seed('erase-dated', 'promoted', { agent: agent.id });
    const third = await seed('erase-dated', 'rejected', { agent: agent.id });
    const dpo = erasure();
    expect((await dpo.erase({ agentSlug: 'erase-dated', channelSlug: 'erase-dated', before })).submissions).toBe(1);
    expect(await stored(older.keys)).toBe(0);
    expect(await stored([...newer.keys, ...third.keys])).toBe(6);
    expect((await dpo.erase({ submissionId: third.id })).submissions).toBe(1);
    expect(await stored(third.keys)).toBe(0);
    expect(await stored(newer.keys)).toBe(3);
    await expect(dpo.erase({ agentSlug: 'nobody' })).rejects.toThrow(/no agent nobody/);
  });
});
