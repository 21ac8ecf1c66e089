// The CLI's side of issue 38's retention and erasure points, on a database of its own:
// `channel retention set` shows what the new periods would purge at once before it changes
// anything (point 10), doctor shows pending deletions and `media erase` drops an open tus upload's
// partial file (point 11), and `media verify --grace` has its minimum (point 12).
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createDatabase, type Database } from '@framedesk/db';
import { newId } from '@framedesk/domain';
import { createTestDatabase, type TestDatabase } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPendingDeletions } from '../src/doctor/media-check';
import { seedFrame } from './frames';
import { runCli } from './in-process';

describe('channel retention set: a preview, then --yes', () => {
  let database: TestDatabase;
  let db: Database;
  let env: Record<string, string>;
  const cli = (...args: string[]) => runCli(['channel', 'retention', ...args], env);

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDatabase({ url: database.url, poolSize: 2 });
    env = { DATABASE_URL: database.url };
    for (const status of ['rejected', 'rejected', 'promoted', 'failed', 'needs_review'] as const)
      await seedFrame(db, { agent: 'cam', channel: 'news', status });
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  const shown = async () => (await cli('show', '--channel', 'news', '--json')).json()[0];

  it('without --yes: prints how many frames the new periods would purge now, changes nothing, exit 1', async () => {
    const asked = await cli('set', 'news', '--rejected', '0d', '--promoted', '0d');
    expect(asked.code).toBe(1);
    expect(asked.out.join('\n')).toContain('would purge now: 2 rejected, 0 failed, 1 promoted (3 frames');
    expect(asked.out.join('\n')).toContain('NOT applied');
    expect(await shown()).toMatchObject({ rejected: { retention: 'never', source: 'default' } });
    expect(await database.query("SELECT 1 FROM account_events WHERE action = 'retention_set'")).toHaveLength(0);
  });

  it('--dry-run: the preview alone, exit 0, nothing changed', async () => {
    const dry = await cli('set', 'news', '--failed', '0d', '--dry-run', '--json');
    expect(dry.code).toBe(0);
    expect(dry.json()).toMatchObject({
      channel: 'news',
      failed: { retention: '0d', source: 'channel' },
      would_purge: { rejected: 0, failed: 1, promoted: 0, total: 1 },
      applied: false,
      dry_run: true,
    });
    expect(await shown()).toMatchObject({ failed: { retention: 'never', source: 'default' } });
  });

  it("doctor warns while a purged or erased frame's media wait to be deleted (a provider that refused)", async () => {
    expect(await checkPendingDeletions({ DATABASE_URL: database.url })).toMatchObject({ status: 'ok' });
    const [row] = await database.query("SELECT id FROM submissions WHERE status = 'failed'");
    await database.query(
      `UPDATE submissions SET purged_at = now(), deletion_pending_since = now() - interval '2 hours',
              deletion_error = 'cloudflare refused to delete v1: 503' WHERE id = $1`,
      [row.id],
    );
    expect(await checkPendingDeletions({ DATABASE_URL: database.url })).toMatchObject({
      status: 'warn',
      message: expect.stringContaining(`1 frame purged or erased with media not all deleted yet`),
    });
    expect((await checkPendingDeletions({ DATABASE_URL: database.url })).message).toContain(
      `${row.id}: cloudflare refused to delete v1: 503`,
    );
    await database.query(
      'UPDATE submissions SET purged_at = NULL, deletion_pending_since = NULL, deletion_error = NULL WHERE id = $1',
      [row.id],
    );
  });

  it('--yes: applies and records it; --yes with --dry-run is refused', async () => {
    const applied = await cli('set', 'news', '--rejected', '0d', '--yes', '--json');
    expect(applied.code).toBe(0);
    expect(applied.json()).toMatchObject({
      rejected: { retention: '0d', source: 'channel' },
      would_purge: { rejected: 2, total: 2 },
      applied: true,
    });
    expect(await shown()).toMatchObject({ rejected: { retention: '0d', source: 'channel' } });
    expect(await database.query("SELECT 1 FROM account_events WHERE action = 'retention_set'")).toHaveLength(1);
    const both = await cli('set', 'news', '--rejected', 'never', '--yes', '--dry-run');
    expect({ code: both.code, err: both.err.length }).toEqual({ code: 2, err: 1 });
  });
});

describe('media verify --grace', () => {
  it('refuses a grace under its documented minimum of one hour: one line, exit 2', async () => {
    const refused = await runCli(['media', 'verify', '--repair', '--grace', '30m'], {
      DATABASE_URL: 'postgres://unused',
    });
    expect({ code: refused.code, lines: refused.err.length }).toEqual({ code: 2, lines: 1 });
    expect(refused.err[0]).toContain('below the minimum of 1h');
  });
});

describe('media erase: an open resumable upload', () => {
  it("drops the partial file the API's tus store keeps for it (STORAGE_FS_ROOT/.tus)", async () => {
    const database = await createTestDatabase();
    const db = createDatabase({ url: database.url, poolSize: 1 });
    const root = await mkdtemp(join(tmpdir(), 'fd-erase-tus-'));
    try {
      const id = await seedFrame(db, {
        agent: 'tus-cam',
        channel: 'tus',
        status: 'waiting_for_upload',
        metadata: { filename: 'home.mp4' },
      });
      const uploadId = newId('upload');
      await db.repos.mediaUploads.create({
        id: uploadId,
        submissionId: id,
        provider: 'local',
        providerRef: null,
        uploadUrl: `http://127.0.0.1/uploads/${uploadId}`,
        protocol: 'tus',
        byteSize: 1000,
        contentType: 'video/mp4',
        filename: 'home.mp4',
        tokenHash: null,
        expiresAt: new Date(Date.now() + 3_600_000),
      });
      // What @tus/file-store holds for an upload cut half-way: its bytes and its metadata.
      const partial = join(root, '.tus', uploadId);
      await mkdir(dirname(partial), { recursive: true });
      await writeFile(partial, Buffer.alloc(400, 1));
      await writeFile(`${partial}.json`, JSON.stringify({ id: uploadId, size: 1000, offset: 400 }));

      const erased = await runCli(['media', 'erase', '--submission', id, '--json'], {
        DATABASE_URL: database.url,
        STORAGE_FS_ROOT: root,
      });
      expect(erased.code, erased.err.join('\n')).toBe(0);
      expect(erased.json()).toMatchObject({ submissions: 1, partials: 1, stopped: 1 });
      expect(existsSync(partial)).toBe(false);
      expect(await db.repos.mediaUploads.findById(uploadId)).toMatchObject({ filename: '' });
    } finally {
      await db.close();
      await database.drop();
      await rm(root, { recursive: true, force: true });
    }
  });
});
