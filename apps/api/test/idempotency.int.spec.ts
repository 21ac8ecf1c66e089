import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePng } from '@framedesk/testing';
import { frameForm, startTestApi, type TestApi } from './harness';

let api: TestApi;
let key: string;
let keyB: string;
const png = makePng(16, 16);
const meta = { agent_slug: 'bot-a', channel_slug: 'news', date: '20261122' };
const post = (idem: string | undefined, form = frameForm(meta, png), k = key) =>
  api.call('POST', '/v1/frame-submissions', {
    key: k,
    headers: idem === undefined ? {} : { 'idempotency-key': idem },
    body: form,
  });
const count = async () => (await api.deps.db.repos.submissions.countByStatus())['received'] ?? 0;
const apiKeyId = async (k: string) => (await api.deps.apiKeys.authenticate(`Bearer ${k}`)).apiKeyId;

beforeAll(async () => {
  api = await startTestApi();
  key = await api.createAgent('bot-a', ['news']);
  keyB = await api.createAgent('bot-b', ['news']);
});
afterAll(async () => {
  await api?.stop();
});

describe('Idempotency-Key', () => {
  it('is required on both POSTs, and must be a UUID (bare or quoted)', async () => {
    const missing = await post(undefined);
    expect([missing.status, missing.body.code]).toEqual([400, 'idempotency_key_required']);
    const upload = await api.call('POST', '/v1/media-uploads', {
      key,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect([upload.status, upload.body.code]).toEqual([400, 'idempotency_key_required']);
    expect((await post('not-a-uuid')).body.code).toBe('invalid_idempotency_key');
    const quoted = randomUUID();
    const first = await post(`"${quoted}"`);
    expect(first.status).toBe(202);
    const bare = await post(quoted.toUpperCase());
    expect([bare.status, bare.headers.get('idempotent-replayed'), bare.body]).toEqual([202, 'true', first.body]);
  });

  it('replays the stored answer for the same request, 422 for a different one, and keys are per API key', async () => {
    const idem = randomUUID();
    const before = await count();
    const first = await post(idem);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // A new multipart boundary and key order: the same request by its parsed content.
    const again = await post(idem, frameForm({ date: '20261122', channel_slug: 'news', agent_slug: 'bot-a' }, png));
    expect([again.status, again.headers.get('idempotent-replayed'), again.body.id]).toEqual([
      202,
      'true',
      first.body.id,
    ]);
    expect(await count()).toBe(before + 1);
    const different = await post(idem, frameForm(meta, makePng(16, 16, { seed: 9 })));
    expect([different.status, different.body.code]).toEqual([422, 'idempotency_key_reused']);
    const otherKey = await post(idem, frameForm({ ...meta, agent_slug: 'bot-b' }, png), keyB);
    expect([otherKey.status, otherKey.headers.get('idempotent-replayed')]).toEqual([202, null]);
  });

  it('20 concurrent requests under one key create exactly one submission', async () => {
    const idem = randomUUID();
    const before = await count();
    const results = await Promise.all(Array.from({ length: 20 }, () => post(idem)));
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 202 || s === 409)).toBe(true);
    const ids = new Set(results.filter((r) => r.status === 202).map((r) => r.body.id));
    expect(ids.size).toBe(1);
    for (const r of results.filter((r) => r.status === 409)) {
      expect(r.body.code).toBe('idempotency_key_in_use');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(await count()).toBe(before + 1);
    const settled = await post(idem);
    expect([settled.status, settled.body.id, settled.headers.get('idempotent-replayed')]).toEqual([
      202,
      [...ids][0],
      'true',
    ]);
  });

  it('answers 409 with Retry-After while the first request is in flight', async () => {
    const idem = randomUUID();
    const first = await post(idem);
    expect(first.status).toBe(202);
    // A live claim for the same request, as if another attempt with idem2 were still running.
    const record = await api.deps.db.repos.idempotency.find(await apiKeyId(key), idem);
    const idem2 = randomUUID();
    const claim = await api.deps.db.repos.idempotency.claim({
      apiKeyId: await apiKeyId(key),
      key: idem2,
      fingerprint: record!.fingerprint,
      now: new Date(),
      lockMs: 60_000,
      retentionMs: 3_600_000,
    });
    expect(claim.kind).toBe('claimed');
    const blocked = await post(idem2);
    expect([blocked.status, blocked.body.code, blocked.headers.get('retry-after')]).toEqual([
      409,
      'idempotency_key_in_use',
      '1',
    ]);
    const different = await post(idem2, frameForm(meta, makePng(8, 8)));
    expect([different.status, different.body.code]).toEqual([422, 'idempotency_key_reused']);
  });

  it('lets a retry proceed after a crash mid-request (the in-flight lock expired)', async () => {
    const idem = randomUUID();
    // What a crashed first attempt leaves: a claim for the same request whose lock has run out.
    const probe = await post(idem);
    const { fingerprint } = (await api.deps.db.repos.idempotency.find(await apiKeyId(key), idem))!;
    const crashed = randomUUID();
    const past = new Date(Date.now() - 120_000);
    const claim = await api.deps.db.repos.idempotency.claim({
      apiKeyId: await apiKeyId(key),
      key: crashed,
      fingerprint,
      now: past,
      lockMs: 60_000,
      retentionMs: 24 * 3_600_000,
    });
    expect(claim.kind).toBe('claimed');
    const before = await count();
    const retry = await post(crashed);
    expect([retry.status, retry.headers.get('idempotent-replayed')]).toEqual([202, null]);
    expect(retry.body.id).not.toBe(probe.body.id);
    expect(await count()).toBe(before + 1);
    // The crashed request cannot complete afterwards: its lock token was taken over.
    const stale = await api.deps.db.repos.idempotency.complete({
      apiKeyId: await apiKeyId(key),
      key: crashed,
      lockedUntil: claim.kind === 'claimed' ? claim.lockedUntil : new Date(),
      status: 202,
      body: {},
    });
    expect(stale).toBe(false);
  });

  it('does not store requests refused before work: a corrected retry with the same key succeeds', async () => {
    const idem = randomUUID();
    expect((await post(idem, frameForm({ ...meta, date: 'tomorrow' }, png))).status).toBe(422);
    expect((await post(idem, frameForm({ ...meta, channel_slug: 'elsewhere' }, png))).status).toBe(403);
    const fixed = await post(idem);
    expect([fixed.status, fixed.headers.get('idempotent-replayed')]).toEqual([202, null]);
  });

  it('keeps records for IDEMPOTENCY_RETENTION_HOURS; the sweeper deletes expired ones', async () => {
    const idem = randomUUID();
    await post(idem);
    const record = await api.deps.db.repos.idempotency.find(await apiKeyId(key), idem);
    const hours = (record!.expiresAt.getTime() - record!.createdAt.getTime()) / 3_600_000;
    expect(hours).toBe(24);
    const swept = await api.deps.db.repos.idempotency.deleteExpired(new Date(Date.now() + 25 * 3_600_000));
    expect(swept).toBeGreaterThan(0);
    expect(await api.deps.db.repos.idempotency.find(await apiKeyId(key), idem)).toBeNull();
  });

  it('every response of this file matched /v1/openapi.json', () => {
    expect(api.contractViolations()).toEqual([]);
  });
});
