// `framedesk media fingerprint --all`: a real CLI process fingerprints processed frames that have
// none, from storage, in batches; a second run finds nothing left to do.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase, type Database } from '@framedesk/db';
import { newId } from '@framedesk/domain';
import { encodePicture, generatePicture, rerender } from '@framedesk/media';
import { createFsStorage, storageKeys } from '@framedesk/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, runApp, type TestDatabase } from '@framedesk/testing';

describe('framedesk media fingerprint', () => {
  let database: TestDatabase;
  let db: Database;
  let dir: string;
  let env: Record<string, string>;
  const ids: Record<string, string> = {};

  /** A frame waiting for review, its original stored (or not), without a fingerprint. */
  async function frame(name: string, png: Buffer | null): Promise<void> {
    const storage = createFsStorage(env['STORAGE_FS_ROOT']!);
    const { channel } = await db.repos.channels.ensure('news');
    const agent = (await db.repos.agents.findBySlug('bot')) ?? (await db.repos.agents.create('bot'));
    const id = newId('submission');
    ids[name] = id;
    await db.repos.submissions.create(
      {
        id,
        status: 'received',
        mediaType: 'image',
        agentId: agent.id,
        channelId: channel.id,
        date: '20260101',
        metadata: {},
        title: name,
        visibility: 'promotion_eligible',
      },
      { type: 'agent', id: agent.id },
    );
    if (png) {
      const key = storageKeys.original(id, 'png');
      const stored = await storage.put('framedesk-originals', key, png, { contentType: 'image/png' });
      await db.repos.mediaObjects.upsert({
        submissionId: id,
        kind: 'original',
        name: 'original',
        bucket: 'framedesk-originals',
        key,
        contentType: 'image/png',
        byteSize: stored.byteSize,
        sha256: stored.sha256,
      });
    }
    for (const to of ['media_processing', 'needs_review'] as const)
      expect((await db.transition({ id, to, actor: { type: 'system' } })).ok).toBe(true);
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDatabase({ url: database.url, poolSize: 2 });
    dir = await mkdtemp(join(tmpdir(), 'framedesk-fingerprint-'));
    env = { DATABASE_URL: database.url, STORAGE_FS_ROOT: join(dir, 'storage') };
    const picture = generatePicture(7, 320, 240);
    await frame('original', await encodePicture(picture));
    await frame('lost', null);
    await frame('unrelated', await encodePicture(generatePicture(77, 320, 240)));
    await frame('again', await rerender(picture, 0.5, 0.92));
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('fingerprints in batches, counts near-duplicates, and a second run has nothing left', async () => {
    const first = await runApp('cli', ['media', 'fingerprint', '--all', '--batch', '2'], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      'done: 3 fingerprinted, 1 without stored media, 0 undecodable; 3 waiting frames recounted',
    );
    const counts = Object.fromEntries(
      await Promise.all(
        ['original', 'unrelated', 'again'].map(async (n) => [
          n,
          (await db.repos.fingerprints.find(ids[n]!))?.similarCount,
        ]),
      ),
    );
    expect(counts).toEqual({ original: 0, unrelated: 0, again: 1 });
    expect(await db.repos.fingerprints.find(ids['lost']!)).toBeNull();

    const second = await runApp('cli', ['media', 'fingerprint', '--all'], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('done: 0 fingerprinted, 1 without stored media');
  });
});
