// The image's one pass into storage: what a killed API leaves is swept at start, a full disk is
// 503 with Retry-After (never 500 with the raw fs message), and a PNG whose IHDR header is not
// valid is refused on its first bytes with nothing stored.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeNoisePng, makePng } from '@framedesk/testing';
import { sweepAtStart } from '../src/startup';
import { frameForm, startTestApi, type TestApi } from './harness';

const meta = { agent_slug: 'bot', channel_slug: 'news', date: '20261122' };

function mountTmpfs(dir: string, size: string): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('image ingest and storage', () => {
  let api: TestApi;
  let key: string;

  beforeAll(async () => {
    api = await startTestApi({ env: { RATE_LIMIT_PER_MINUTE: '1000' } });
    key = await api.createAgent('bot', ['news']);
  });
  afterAll(async () => {
    await api?.stop();
  });

  const post = (image: Buffer, target: TestApi = api, apiKey = key) =>
    target.call('POST', '/v1/frame-submissions', {
      key: apiKey,
      headers: { 'idempotency-key': randomUUID() },
      body: frameForm(meta, image),
    });

  it('sweeps at start the temporary files a killed API left, and keeps those of live requests', async () => {
    const root = api.deps.settings.STORAGE_FS_ROOT;
    const tmp = join(root, api.deps.config.storage.vendor_originals_bucket, '.tmp');
    const spool = join(root, '.spool');
    await mkdir(tmp, { recursive: true });
    await mkdir(spool, { recursive: true });
    const killed = new Date(Date.now() - 30 * 60_000);
    const leftovers = [join(tmp, 'killed-mid-write.part'), join(spool, 'killed-mid-spool.part')];
    for (const path of leftovers) {
      await writeFile(path, 'partial image');
      await utimes(path, killed, killed);
    }
    const live = join(tmp, 'still-arriving.part');
    await writeFile(live, 'image bytes still arriving');

    expect(await sweepAtStart(api.deps)).toBe(2);
    for (const path of leftovers) await expect(stat(path)).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await stat(live)).isFile()).toBe(true);
    await rm(live);
  });

  it('refuses a PNG whose IHDR header is not valid, on its first bytes, with nothing stored', async () => {
    const png = makePng(16, 16);
    const zeroWidth = Buffer.from(png);
    zeroWidth.writeUInt32BE(0, 16);
    const badCrc = Buffer.from(png);
    badCrc[29] = badCrc[29]! ^ 0xff;
    for (const image of [zeroWidth, badCrc, png.subarray(0, 20)]) {
      const res = await post(image);
      expect([res.status, res.body.code]).toEqual([415, 'unsupported_media_type']);
    }
    expect(await api.storedFiles()).toEqual([]);
    expect((await post(png)).status).toBe(202);
  });

  describe('on a full disk', () => {
    let full: TestApi;
    let fullKey: string;
    let dir: string;
    let mounted = false;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'fd-ingest-full-'));
      mounted = mountTmpfs(dir, '1m');
      full = await startTestApi({ env: { STORAGE_FS_ROOT: dir, RATE_LIMIT_PER_MINUTE: '1000' } });
      fullKey = await full.createAgent('bot', ['news']);
    });
    afterAll(async () => {
      await full?.stop();
      if (mounted) execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
      await rm(dir, { recursive: true, force: true });
    });

    // A 1 MiB tmpfs is a disk that fills up for real (ENOSPC from the kernel); mounting needs root.
    it('answers 503 problem+json with Retry-After and a stable code, never the raw fs message', async (context) => {
      if (!mounted) context.skip();
      const res = await post(makeNoisePng(800, 800), full, fullKey); // ~1.9 MB that does not deflate
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body.code).toBe('service_unavailable');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(res.text).not.toMatch(/ENOSPC|no space|\/tmp\//i);
      expect(await full.deps.db.repos.submissions.countByStatus()).toEqual({});
      expect((await full.storedFiles()).filter((f) => f.endsWith('.part'))).toEqual([]);
      // Space is there for a small frame: the service recovers by itself.
      expect((await post(makePng(32, 32), full, fullKey)).status).toBe(202);
    });
  });
});
