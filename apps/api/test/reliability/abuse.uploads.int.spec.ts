// Abuse suite, the upload door (issue 40, point 3): an agent opens 50 resumable uploads, sends
// all but one byte of each and lets them expire. The partial bytes count against its quota
// (AGENT_OPEN_UPLOAD_BYTES_MAX) until the expiry job, in a real worker process, deletes them:
// the bytes it holds on disk never pass the quota, and none are left once the jobs have run.
import { randomUUID } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../harness';
import { patch, TUS, uploadRequest } from '../tus-client';
import { duringAbuse, expectHeld } from './abuse-support';
import { reportFigures } from './harness';

const SESSION_BYTES = 256 * 1024;
const QUOTA_BYTES = 4 * SESSION_BYTES;
const SESSIONS = 50;

// An MP4's first box, so the tus door's container sniff accepts the bytes.
const partialBytes = () => {
  const bytes = Buffer.alloc(SESSION_BYTES - 1, 7);
  bytes.writeUInt32BE(24, 0);
  bytes.write('ftypisom', 4, 'latin1');
  return bytes;
};

describe('abuse: 50 expiring uploads', () => {
  let api: TestApi;
  let flooderKey: string;
  let bystanderKey: string;

  beforeAll(async () => {
    api = await startTestApi({
      env: { AGENT_OPEN_UPLOAD_BYTES_MAX: String(QUOTA_BYTES), AGENT_OPEN_UPLOADS_MAX: String(SESSIONS) },
      // Every video resumable (tus), however small.
      config: (c) => void (c.media.small_video_max_bytes = 1024),
    });
    flooderKey = await api.createAgent('flooder', ['news']);
    bystanderKey = await api.createAgent('bystander', ['news']);
    await api.startWorker();
  }, 120_000);
  afterAll(() => api?.stop());

  const createUpload = (agent: 'flooder' | 'bystander') =>
    api.call('POST', '/v1/media-uploads', {
      key: agent === 'flooder' ? flooderKey : bystanderKey,
      headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify(uploadRequest(agent, SESSION_BYTES)),
    });

  /** Bytes of resumable partials on disk (the tus store's files, not their small .json records). */
  const partialBytesOnDisk = async () => {
    const dir = join(api.deps.settings.STORAGE_FS_ROOT, '.tus');
    let total = 0;
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      if (name.endsWith('.json')) continue;
      total += (await stat(join(dir, name)).catch(() => ({ size: 0 }))).size;
    }
    return total;
  };

  /** Lets every upload session of the flooder expire now: its expiry passes, its delayed job fires. */
  const expireAll = async () => {
    await api.database.query(`UPDATE media_uploads SET expires_at = now() - interval '1 second'`);
  };
  const fireExpiryJobs = async () => {
    for (const job of await api.deps.queues.queue('upload-expiry').getDelayed()) await job.promote();
  };

  it('holds an agent to its quota in partial bytes while sessions expire; the expiry job deletes them', async () => {
    const bystander = async () => {
      const res = await api.call('GET', '/v1/frame-submissions?limit=1', { key: bystanderKey });
      if (res.status !== 200) throw new Error(`bystander agent got ${res.status}`);
    };
    const { result, report } = await duringAbuse({ url: api.url, bystander }, async () => {
      let created = 0;
      let refused = 0;
      let peakOnDisk = 0;
      for (let i = 0; i < SESSIONS; i++) {
        const res = await createUpload('flooder');
        if (res.status === 429) {
          expect(res.body.code).toBe('quota_exceeded');
          refused++;
          continue;
        }
        expect(res.status).toBe(201);
        created++;
        const creation = await fetch(res.body.upload_url as string, {
          method: 'POST',
          headers: { ...TUS, 'Upload-Length': String(SESSION_BYTES) },
        });
        expect(creation.status).toBe(201);
        const location = new URL(creation.headers.get('location')!, api.url).toString();
        expect((await patch(location, 0, partialBytes())).status).toBe(204);
        // Let it expire with all but one byte sent (the job has not run yet).
        await expireAll();
        peakOnDisk = Math.max(peakOnDisk, await partialBytesOnDisk());
      }
      return { created, refused, peakOnDisk };
    });
    reportFigures('abuse.uploads', { sessions: SESSIONS, ...result, ...report });
    // Expired, not yet deleted: the partials still count, so the quota holds.
    expect(result.created).toBe(QUOTA_BYTES / SESSION_BYTES);
    expect(result.refused).toBe(SESSIONS - result.created);
    expect(result.peakOnDisk).toBeLessThanOrEqual(QUOTA_BYTES);
    expectHeld(report);
    // Another agent's uploads are not held up by the flooder's quota.
    expect((await createUpload('bystander')).status).toBe(201);

    // The delayed expiry jobs fire (as at expires_at): the worker deletes every partial itself.
    await fireExpiryJobs();
    await expect.poll(partialBytesOnDisk, { timeout: 60_000, interval: 200 }).toBe(0);
    const rows = await api.database.query<{ n: string }>(
      `SELECT count(*) AS n FROM media_uploads u JOIN submissions s ON s.id = u.submission_id
       WHERE s.failure_code = 'upload_expired' AND u.partials_deleted_at IS NOT NULL`,
    );
    expect(Number(rows[0]!.n)).toBe(result.created);
    // And the quota is free again.
    expect((await createUpload('flooder')).status).toBe(201);
  }, 120_000);
});
