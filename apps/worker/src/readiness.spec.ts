import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkNeeds, type NeedCheckDeps } from './readiness';

// A worker started on a busy machine (its first check while everything boots) must not tell the
// operator to start a PostgreSQL, Redis or ffmpeg that is there and merely slow to answer.
describe('checkNeeds', () => {
  let dir: string;
  let slowTool: string;
  const never = () => new Promise<never>(() => {});
  const refused = () =>
    Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5999'), { code: 'ECONNREFUSED' }));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fd-readiness-'));
    slowTool = join(dir, 'slow-tool');
    await writeFile(slowTool, '#!/bin/sh\nsleep 5\n');
    await chmod(slowTool, 0o755);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const deps = (over: Partial<NeedCheckDeps>): NeedCheckDeps => ({
    settings: {
      DATABASE_URL: 'postgresql://u:secret@db.internal:5432/framedesk',
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_SENTINELS: '',
      REDIS_SENTINEL_NAME: 'framedesk',
      FFPROBE_PATH: slowTool,
      FFMPEG_PATH: join(dir, 'missing-ffmpeg'),
      STORAGE_DRIVER: 'fs',
    },
    db: { ping: never },
    redis: { ping: never },
    storage: { ping: never },
    bucket: 'framedesk-originals',
    timeoutMs: 200,
    ...over,
  });

  it('says a server that did not answer in time did not answer, and one that refused is not reachable', async () => {
    const results = await checkNeeds(new Set(['postgres', 'redis', 'storage']), deps({ redis: { ping: refused } }));
    expect(results.get('postgres')).toEqual({
      ok: false,
      reason:
        "PostgreSQL at db.internal:5432 did not answer within the check's time (busy or unreachable); if it persists: start it or fix DATABASE_URL",
      noAnswer: true,
    });
    expect(results.get('redis')).toEqual({
      ok: false,
      reason: expect.stringMatching(/^Redis not reachable at .*6379; start it or fix REDIS_URL$/),
      noAnswer: false,
    });
    expect(results.get('storage')).toEqual({
      ok: false,
      reason: "storage (fs) did not answer within the check's time (busy or unreachable)",
      noAnswer: true,
    });
  });

  it('says a video tool that did not finish in time did not finish, and a missing one is missing', async () => {
    const results = await checkNeeds(new Set(['ffprobe', 'ffmpeg']), deps({}));
    expect(results.get('ffprobe')).toEqual({
      ok: false,
      reason: `ffprobe -version did not finish within 200 ms at ${slowTool}; install ffmpeg (Debian: apt-get install ffmpeg) or set FFPROBE_PATH`,
    });
    expect(results.get('ffmpeg')).toMatchObject({ ok: false, reason: expect.stringContaining('ffmpeg not found at') });
  });
});
