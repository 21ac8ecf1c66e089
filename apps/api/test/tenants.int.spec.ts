// One agent must not be able to hurt the others: video size bound and per-agent upload quotas.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './harness';
import { uploadRequest } from './tus-client';

let api: TestApi;
const keys: Record<string, string> = {};

const createUpload = (agent: string, byteSize: number) =>
  api.call('POST', '/v1/media-uploads', {
    key: keys[agent]!,
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify(uploadRequest(agent, byteSize)),
  });
const submissionCount = async () =>
  Object.values(await api.deps.db.repos.submissions.countByStatus()).reduce((a, b) => a + b, 0);

beforeAll(async () => {
  api = await startTestApi({
    env: {
      VIDEO_MAX_BYTES: String(100_000_000),
      AGENT_OPEN_UPLOADS_MAX: '3',
      AGENT_OPEN_UPLOAD_BYTES_MAX: String(5_000_000),
      RATE_LIMIT_PER_MINUTE: '1000',
      INVALID_API_KEYS_PER_MINUTE: '3',
      METRICS_TOKEN: 'metrics-token-for-tests',
    },
    // A storage whose failure message names a host and a path: neither may reach anonymous callers.
    override: (deps) => ({
      ...deps,
      storage: {
        ...deps.storage,
        ping: () => Promise.reject(new Error('connect ECONNREFUSED 10.1.2.3:9000 /srv/private/bucket')),
      },
    }),
  });
  for (const agent of ['cam-a', 'cam-b', 'cam-c']) keys[agent] = await api.createAgent(agent, ['news']);
});
afterAll(async () => {
  await api?.stop();
});

describe('video size and upload quotas', () => {
  it('refuses byte_size above VIDEO_MAX_BYTES with 413 payload_too_large naming the limit; nothing is kept', async () => {
    const before = await submissionCount();
    for (const size of [1e15, 100_000_001]) {
      const res = await createUpload('cam-a', size);
      expect([res.status, res.body.code]).toEqual([413, 'payload_too_large']);
      expect(res.body.detail).toContain('100000000 bytes');
    }
    expect(await submissionCount()).toBe(before);
    expect(await api.storedFiles()).toEqual([]);
  });

  it('refuses open sessions past AGENT_OPEN_UPLOADS_MAX with 429 quota_exceeded, for that agent only', async () => {
    for (let i = 0; i < 3; i++) expect((await createUpload('cam-a', 1_000)).status).toBe(201);
    const before = await submissionCount();
    const refused = await createUpload('cam-a', 1_000);
    expect([refused.status, refused.body.code]).toEqual([429, 'quota_exceeded']);
    expect(refused.body.detail).toMatch(/3 open upload sessions \(at most 3\)/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await submissionCount()).toBe(before);
    expect((await createUpload('cam-b', 1_000)).status).toBe(201);
    expect(api.contractViolations()).toEqual([]);
  });

  it('refuses bytes in unfinished uploads past AGENT_OPEN_UPLOAD_BYTES_MAX', async () => {
    expect((await createUpload('cam-b', 3_000_000)).status).toBe(201);
    const refused = await createUpload('cam-b', 2_000_000);
    expect([refused.status, refused.body.code]).toEqual([429, 'quota_exceeded']);
    expect(refused.body.detail).toContain('5000000-byte quota');
    expect((await createUpload('cam-b', 999_000)).status).toBe(201);
  });

  it('holds the quota under concurrent creations', async () => {
    const statuses = (await Promise.all(Array.from({ length: 6 }, () => createUpload('cam-c', 1_000)))).map(
      (r) => r.status,
    );
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(3);
  });
});

describe('probes and keys', () => {
  it('/readyz tells anonymous callers ok or unavailable per dependency, and the setting to fix, no host or path', async () => {
    const res = await api.call('GET', '/readyz');
    expect(res.status).toBe(503);
    expect(res.body.checks).toEqual({
      postgres: { status: 'ok' },
      redis: { status: 'ok' },
      storage: {
        status: 'unavailable',
        detail:
          'storage (fs): bucket folder framedesk-originals not writable (Error); make STORAGE_FS_ROOT writable by this user',
      },
    });
    expect(res.text).not.toMatch(/10\.1\.2\.3|ECONNREFUSED|private/);
  });

  it('/metrics requires the METRICS_TOKEN bearer when one is set', async () => {
    expect((await api.call('GET', '/metrics')).status).toBe(401);
    expect((await api.call('GET', '/metrics', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const ok = await api.call('GET', '/metrics', { headers: { authorization: 'Bearer metrics-token-for-tests' } });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('http_request_duration_seconds');
  });

  it('refuses invalid API keys from one address with 429 before looking them up', async () => {
    const fake = (i: number) => `fd_live_${String(i).padStart(33, 'Z')}`;
    for (let i = 0; i < 3; i++)
      expect((await api.call('GET', '/v1/frame-submissions', { key: fake(i) })).status).toBe(401);
    // Past the limit the database is not asked at all: even a lookup that would throw is never reached.
    const lookups = api.deps.db.repos.apiKeys.findByHash;
    let looked = 0;
    api.deps.db.repos.apiKeys.findByHash = (hash) => {
      looked++;
      return lookups(hash);
    };
    try {
      const refused = await api.call('GET', '/v1/frame-submissions', { key: fake(9) });
      expect([refused.status, refused.body.code]).toEqual([429, 'rate_limited']);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(looked).toBe(0);
    } finally {
      api.deps.db.repos.apiKeys.findByHash = lookups;
    }
  });
});
