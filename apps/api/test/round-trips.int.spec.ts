// What one agent request costs in round trips to PostgreSQL and Redis, counted around single
// requests against the real API (docs/performance.md, "What an accepted frame costs"). Counts,
// not timings: a new statement or Redis call on the hot path fails here, on any machine.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRoundTrips, makePng } from '@framedesk/testing';
import { frameForm, startTestApi, type TestApi } from './harness';

let api: TestApi;
let key: string;
const png = makePng(32, 32);

const submit = (idempotencyKey: string) =>
  api.call('POST', '/v1/frame-submissions', {
    key,
    headers: { 'idempotency-key': idempotencyKey },
    body: frameForm({ agent_slug: 'counted', channel_slug: 'news', date: '20261123', title: 't' }, png),
  });

beforeAll(async () => {
  api = await startTestApi();
  key = await api.createAgent('counted', ['news']);
  // Warm-up: connections open, Lua scripts loaded, lazy modules read.
  expect((await submit(randomUUID())).status).toBe(202);
  expect((await api.call('GET', '/v1/frame-submissions?limit=1', { key })).status).toBe(200);
});
afterAll(async () => {
  await api?.stop();
});

describe('round trips per agent request', () => {
  it('an accepted image: 2 statements (API key, the create) and 2 Redis calls (rate limit, enqueue)', async () => {
    let id = '';
    const counted = await countRoundTrips(async () => {
      const res = await submit(randomUUID());
      expect(res.status).toBe(202);
      id = res.body.id as string;
    });
    expect(counted.sql).toHaveLength(2);
    expect(counted.redis).toHaveLength(2);
    expect(await api.deps.db.repos.submissions.findById(id)).toMatchObject({ status: 'received' });
  });

  it('GET by id and the list: 2 statements each (API key, one SELECT) and 1 Redis call (rate limit)', async () => {
    const created = await submit(randomUUID());
    for (const path of [`/v1/frame-submissions/${String(created.body.id)}`, '/v1/frame-submissions?limit=20']) {
      const counted = await countRoundTrips(async () => {
        expect((await api.call('GET', path, { key })).status).toBe(200);
      });
      expect(counted.sql, path).toHaveLength(2);
      expect(counted.redis, path).toHaveLength(1);
    }
  });
});
