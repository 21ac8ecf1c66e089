import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intakeEntries } from '@framedesk/queues';
import { makePng } from '@framedesk/testing';
import { frameForm, startTestApi, type TestApi } from './harness';

let api: TestApi;
let key: string;
let otherKey: string;
const png = makePng(32, 24);
const meta = (over: Record<string, unknown> = {}) => ({
  agent_slug: 'bot-a',
  channel_slug: 'news',
  date: '20261122',
  ...over,
});
const post = (form: FormData, k: string | undefined = key, idem: string | null = randomUUID()) =>
  api.call('POST', '/v1/frame-submissions', {
    ...(k ? { key: k } : {}),
    headers: idem ? { 'idempotency-key': idem } : {},
    body: form,
  });

beforeAll(async () => {
  api = await startTestApi();
  key = await api.createAgent('bot-a', ['news', 'sports']);
  otherKey = await api.createAgent('bot-b', ['news']);
  await api.deps.db.repos.channels.ensure('closed');
});
afterAll(async () => {
  await api?.stop();
});

describe('POST /v1/frame-submissions', () => {
  it('accepts a PNG: 202, status received, original stored, submission + event + media row, job enqueued', async () => {
    const zones = [{ x: 0.1, y: 0.1, width: 0.5, height: 0.3, url: 'https://example.com/a', label: 'A' }];
    const res = await post(
      frameForm(meta({ title: 'Hello', caption: 'c', click_zones: zones, external_ref: 'ref-1' }), png),
    );
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      status: 'received',
      agent_slug: 'bot-a',
      channel_slug: 'news',
      date: '20261122',
      media_type: 'image',
      title: 'Hello',
      click_zones: zones,
    });
    expect(res.body.id).toMatch(/^sub_[0-9A-Za-z]{22}$/);
    expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);
    expect(res.headers.get('location')).toBe(`/v1/frame-submissions/${res.body.id}`);
    expect(res.headers.get('ratelimit-limit')).toBe('600');
    const id = res.body.id as string;
    const original = await api.deps.db.repos.mediaObjects.find(id, 'original', 'original');
    expect(original).toMatchObject({ bucket: 'framedesk-originals', byteSize: BigInt(png.length) });
    expect((await api.deps.storage.stat(original!.bucket, original!.key))?.byteSize).toBe(png.length);
    const events = await api.deps.db.repos.submissions.events(id);
    expect(events.map((e) => [e.fromStatus, e.toStatus, e.actorType])).toEqual([[null, 'received', 'agent']]);
    // Sent to the workers through the image intake, in the first band (the agent's only frame
    // waiting); the request's id travels with it, into the worker's log lines of the frame.
    const sent = (await intakeEntries(api.deps.redis, api.deps.settings.REDIS_PREFIX)).filter(
      (e) => e.submissionId === id,
    );
    expect(sent).toEqual([
      { id: expect.any(String), band: 0, submissionId: id, origin: { requestId: res.headers.get('x-request-id') } },
    ]);
    expect(await api.storedFiles()).toHaveLength(1); // the original; no spool file left
  });

  it('accepts metadata sent as a plain field as well as a file part', async () => {
    const form = new FormData();
    form.append('metadata', JSON.stringify(meta()));
    form.append('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'x.png');
    expect((await post(form)).status).toBe(202);
  });

  it.each([
    [
      'a video part',
      (f: FormData) => f.append('video', new Blob([new Uint8Array(10)], { type: 'video/mp4' }), 'v.mp4'),
    ],
    ['a media_upload_id field', (f: FormData) => f.append('media_upload_id', 'upl_0000000000000000000000')],
  ])('refuses %s with 415 unsupported_media_type, whatever else the request holds', async (_name, extra) => {
    for (const form of [frameForm(meta(), png, extra), frameForm({ bad: true }, null, extra)]) {
      const res = await post(form);
      expect(res.status).toBe(415);
      expect(res.body.code).toBe('unsupported_media_type');
    }
    const json = await api.call('POST', '/v1/frame-submissions', {
      key,
      headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ media_upload_id: 'upl_x' }),
    });
    expect(json.status).toBe(415);
  });

  it('refuses images that are not PNG by magic bytes or by declared type (415)', async () => {
    const fake = frameForm(meta(), Buffer.from('GIF89a not a png at all'));
    expect((await post(fake)).body.code).toBe('unsupported_media_type');
    const jpeg = frameForm(meta(), null, (f) =>
      f.append('image', new Blob([new Uint8Array(png)], { type: 'image/jpeg' }), 'x.jpg'),
    );
    const res = await post(jpeg);
    expect([res.status, res.body.code]).toEqual([415, 'unsupported_media_type']);
    expect(await api.storedFiles()).toHaveLength(2);
  });

  it('answers 413 metadata_too_large past api.metadata_max_bytes', async () => {
    const res = await post(frameForm(meta({ caption: 'x'.repeat(17_000) }), png));
    expect([res.status, res.body.code]).toEqual([413, 'metadata_too_large']);
    const asField = new FormData();
    asField.append('metadata', JSON.stringify(meta({ caption: 'x'.repeat(17_000) })));
    asField.append('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'x.png');
    expect((await post(asField)).body.code).toBe('metadata_too_large');
  });

  it('answers 422 validation_failed listing every field error', async () => {
    const zones = Array.from({ length: 21 }, () => ({ x: 0.9, y: 0, width: 0.2, height: 0.1, url: 'ftp://x' }));
    const res = await post(
      frameForm(
        { agent_slug: 'Bad Slug', date: '20230229', title: 'x'.repeat(201), extra: 1, click_zones: zones },
        png,
      ),
    );
    expect([res.status, res.body.code]).toEqual([422, 'validation_failed']);
    const pointers = (res.body.errors as { pointer: string }[]).map((e) => e.pointer);
    expect(pointers).toEqual(
      expect.arrayContaining([
        '/metadata/agent_slug',
        '/metadata/channel_slug',
        '/metadata/title',
        '/metadata/extra',
        '/metadata/click_zones',
      ]),
    );
    const inside = await post(
      frameForm(
        meta({ date: '20230229', click_zones: [{ x: 0.9, y: 0.5, width: 0.2, height: 0.6, url: 'https://e.com' }] }),
        png,
      ),
    );
    expect((inside.body.errors as { pointer: string }[]).map((e) => e.pointer).sort()).toEqual([
      '/metadata/click_zones/0/height',
      '/metadata/click_zones/0/width',
      '/metadata/date',
    ]);
    const badUrl = await post(
      frameForm(meta({ click_zones: [{ x: 0, y: 0, width: 1, height: 1, url: 'javascript:alert(1)' }] }), png),
    );
    expect(badUrl.body.errors[0].pointer).toBe('/metadata/click_zones/0/url');
  });

  it('answers 400 invalid_request for malformed JSON, missing parts, unknown parts and broken multipart', async () => {
    expect((await post(frameForm('{not json', png))).body.code).toBe('invalid_request');
    expect((await post(frameForm(meta(), null))).body.code).toBe('invalid_request');
    const noMeta = new FormData();
    noMeta.append('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'x.png');
    expect((await post(noMeta)).body.code).toBe('invalid_request');
    expect((await post(frameForm(meta(), png, (f) => f.append('colour', 'red')))).body.code).toBe('invalid_request');
    const broken = await api.call('POST', '/v1/frame-submissions', {
      key,
      headers: { 'content-type': 'multipart/form-data; boundary=xyz', 'idempotency-key': randomUUID() },
      body: '--xyz\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n{}\r\n--xy',
    });
    expect([broken.status, broken.body.code]).toEqual([400, 'invalid_request']);
    const manyParts = frameForm(meta(), png, (f) => {
      for (let i = 0; i < 20; i++) f.append(`x${i}`, 'y');
    });
    const tooMany = await post(manyParts);
    expect([tooMany.status, tooMany.body.code]).toEqual([400, 'invalid_request']);
    const noBoundary = await api.call('POST', '/v1/frame-submissions', {
      key,
      headers: { 'content-type': 'multipart/form-data', 'idempotency-key': randomUUID() },
      body: 'x',
    });
    expect([noBoundary.status, noBoundary.body.code]).toEqual([400, 'invalid_request']);
  });

  it("answers 403 when agent_slug is not the key's agent or the channel is not allowed (or unknown)", async () => {
    for (const m of [
      meta({ agent_slug: 'bot-b' }),
      meta({ channel_slug: 'closed' }),
      meta({ channel_slug: 'nowhere' }),
    ]) {
      const res = await post(frameForm(m, png));
      expect([res.status, res.body.code]).toEqual([403, 'forbidden']);
    }
  });

  it('answers 401 unauthenticated with WWW-Authenticate for missing, malformed, unknown and revoked keys', async () => {
    const revoked = await api.createAgent('bot-revoked', ['news']);
    await api.deps.db.repos.apiKeys.revokeByPrefix(revoked.slice(0, 16));
    for (const authorization of [
      undefined,
      'Basic abc',
      'Bearer nope',
      `Bearer fd_live_${'A'.repeat(33)}`,
      `Bearer ${revoked}`,
    ]) {
      const res = await api.call('POST', '/v1/frame-submissions', {
        headers: { ...(authorization ? { authorization } : {}), 'idempotency-key': randomUUID() },
        body: frameForm(meta(), png),
      });
      expect([res.status, res.body.code]).toEqual([401, 'unauthenticated']);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
  });
});

describe('GET /v1/frame-submissions', () => {
  it("returns the full resource, and another agent's id is 404 exactly like an unknown one", async () => {
    const created = await post(frameForm(meta({ title: 'T' }), png));
    const id = created.body.id as string;
    const res = await api.call('GET', `/v1/frame-submissions/${id}`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      status: 'received',
      visibility: 'promotion_eligible',
      variants: {},
      failure: null,
      review: null,
      media_upload_id: null,
      title: 'T',
    });
    const probe = await api.call('GET', `/v1/frame-submissions/${id}`, { key: otherKey });
    const unknown = await api.call('GET', `/v1/frame-submissions/sub_${'0'.repeat(22)}`, { key: otherKey });
    const garbage = await api.call('GET', '/v1/frame-submissions/whatever', { key: otherKey });
    for (const r of [probe, unknown, garbage])
      expect([r.status, r.body.code, r.body.title]).toEqual([404, 'not_found', 'No such resource']);
    expect(probe.body.detail.replace(id, 'ID')).toBe(unknown.body.detail.replace(`sub_${'0'.repeat(22)}`, 'ID'));
  });

  it('lists own submissions newest first with cursor pagination and filters', async () => {
    const listKey = await api.createAgent('lister', ['news', 'sports']);
    const ids: string[] = [];
    for (const channel of ['news', 'sports', 'news', 'news', 'sports']) {
      const res = await post(
        frameForm(
          { agent_slug: 'lister', channel_slug: channel, date: '20261122' },
          makePng(4, 4, { seed: ids.length }),
        ),
        listKey,
      );
      ids.push(res.body.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { data: { id: string }[]; next_cursor: string | null; has_more: boolean } } =
        await api.call('GET', `/v1/frame-submissions?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key: listKey });
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((s) => s.id));
      cursor = page.body.next_cursor;
      expect(page.body.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    const sports = await api.call('GET', '/v1/frame-submissions?channel_slug=sports', { key: listKey });
    expect(sports.body.data.map((s: { id: string }) => s.id)).toEqual([ids[4], ids[1]]);
    const failed = await api.call('GET', '/v1/frame-submissions?status=failed', { key: listKey });
    expect(failed.body.data).toEqual([]);
    const bad = await api.call('GET', '/v1/frame-submissions?status=nope&limit=1000', { key: listKey });
    expect([bad.status, bad.body.code, bad.body.errors.length]).toEqual([422, 'validation_failed', 2]);
    const badCursor = await api.call('GET', '/v1/frame-submissions?cursor=zzz', { key: listKey });
    expect([badCursor.status, badCursor.body.code]).toEqual([400, 'invalid_request']);
  });
});

describe('every error is problem+json', () => {
  it('covers unknown routes, 405 and the agent API', async () => {
    const unknown = await api.call('GET', '/v2/nothing');
    expect([unknown.status, unknown.body.code]).toEqual([404, 'not_found']);
    const wrongMethod = await api.call('DELETE', '/v1/frame-submissions', { key });
    expect([wrongMethod.status, wrongMethod.body.code, wrongMethod.headers.get('allow')]).toEqual([
      405,
      'method_not_allowed',
      'GET, POST',
    ]);
    expect(wrongMethod.body.request_id).toBe(wrongMethod.headers.get('x-request-id'));
  });

  it('every response of this file matched /v1/openapi.json', () => {
    expect(api.contractViolations()).toEqual([]);
  });
});
