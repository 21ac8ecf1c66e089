// No one reads or changes what is not theirs: agents' ids, revoked keys, agent keys on the
// review API and reviewer cookies on the agent API, login guessing, one-time upload URLs,
// secrets in logs, security headers and CORS.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type RelStack, reportFigures, startRelStack, submitFrame } from './harness';
import { uploadRequest } from '../tus-client';
import { multipartBody, rawRequest, requestBytes } from './raw-http';

const PASSWORD = `pw-${randomUUID()}`;
const secrets: string[] = [];
let checks = 0;

describe('access', () => {
  let stack: RelStack;
  let alice: string;
  let bob: string;
  let video: Buffer;
  const auth = (key: string) => ({ authorization: `Bearer ${key}` });

  const login = async (email: string, password: string) => {
    const res = await fetch(`${stack.apiUrl}/review/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const body = (await res.json().catch(() => ({}))) as { csrf_token?: string; code?: string };
    return {
      status: res.status,
      cookie,
      csrf: body.csrf_token ?? '',
      code: body.code,
      retryAfter: res.headers.get('retry-after'),
    };
  };

  const createUpload = async (key: string, agent: string) =>
    call(`${stack.apiUrl}/v1/media-uploads`, {
      method: 'POST',
      headers: { ...auth(key), 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify(uploadRequest(agent, video.length)),
    });

  // Raw HTTP: a refusal may come before the body is read, and must still be seen.
  const uploadTo = async (url: string) => {
    const { body, contentType } = multipartBody([
      { name: 'file', filename: 'clip.mp4', contentType: 'video/mp4', body: video },
    ]);
    const target = new URL(url);
    return rawRequest(
      Number(target.port),
      requestBytes({ path: target.pathname + target.search, headers: { 'content-type': contentType }, body }),
      { timeoutMs: 20_000 },
    );
  };

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fd-access-'));
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=duration=1:size=64x48:rate=5',
      '-pix_fmt',
      'yuv420p',
      join(dir, 'clip.mp4'),
    ]);
    video = readFileSync(join(dir, 'clip.mp4'));
    rmSync(dir, { recursive: true, force: true });
    stack = await startRelStack({
      workers: 0,
      env: { LOGIN_ATTEMPTS_PER_15_MINUTES: '3', RATE_LIMIT_PER_MINUTE: '100000' },
    });
    alice = await stack.createAgent('alice', ['news']);
    bob = await stack.createAgent('bob', ['news', 'sports']);
    secrets.push(alice, bob, PASSWORD);
    for (const email of ['rev@example.com', 'guess@example.com']) {
      const created = await stack.cli(['reviewer', 'create', email, '--password-stdin'], `${PASSWORD}\n`);
      expect(created.code, created.stderr).toBe(0);
    }
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it("answers 404 for another agent's submissions and uploads, exactly as for unknown ids", async () => {
    const mine = await submitFrame(stack.apiUrl, alice, { agent: 'alice', channel: 'news' });
    expect(mine.status).toBe(202);
    const id = String(mine.body?.['id']);
    const theirs = await call(`${stack.apiUrl}/v1/frame-submissions/${id}`, { headers: auth(bob) });
    const unknown = await call(`${stack.apiUrl}/v1/frame-submissions/sub_${'0'.repeat(22)}`, { headers: auth(bob) });
    expect(theirs.status).toBe(404);
    expect([theirs.body?.['code'], theirs.body?.['title']]).toEqual([unknown.body?.['code'], unknown.body?.['title']]);
    const list = await call(`${stack.apiUrl}/v1/frame-submissions?channel_slug=news`, { headers: auth(bob) });
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).not.toContain(id);

    const upload = await createUpload(alice, 'alice');
    expect(upload.status).toBe(201);
    const uploadId = String(upload.body?.['id']);
    expect((await call(`${stack.apiUrl}/v1/media-uploads/${uploadId}`, { headers: auth(bob) })).status).toBe(404);
    expect(
      (
        await call(`${stack.apiUrl}/v1/frame-submissions/${String(upload.body?.['submission_id'])}`, {
          headers: auth(bob),
        })
      ).status,
    ).toBe(404);

    // Posting as someone else is refused; a borrowed Idempotency-Key replays nothing of theirs.
    expect((await submitFrame(stack.apiUrl, bob, { agent: 'alice', channel: 'news' })).status).toBe(403);
    const sameKey = randomUUID();
    const a = await submitFrame(stack.apiUrl, alice, { agent: 'alice', channel: 'news', idempotencyKey: sameKey });
    const b = await submitFrame(stack.apiUrl, bob, { agent: 'bob', channel: 'news', idempotencyKey: sameKey });
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(b.body?.['id']).not.toBe(a.body?.['id']);
    checks += 8;
  });

  it('stops a revoked key on the very next request', async () => {
    const issued = await stack.cli(['key', 'create', 'alice', '--json']);
    const second = (JSON.parse(issued.stdout) as { api_key: string }).api_key;
    secrets.push(second);
    expect((await call(`${stack.apiUrl}/v1/frame-submissions`, { headers: auth(second) })).status).toBe(200);
    const revoked = await stack.cli(['key', 'revoke', second.slice(0, 16)]);
    expect(revoked.code, revoked.stderr).toBe(0);
    const after = await fetch(`${stack.apiUrl}/v1/frame-submissions`, { headers: auth(second) });
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await call(`${stack.apiUrl}/v1/frame-submissions`, { headers: auth(alice) })).status).toBe(200);
    checks += 3;
  });

  it('keeps agent keys out of the review API and reviewer cookies out of the agent API', async () => {
    for (const [method, path] of [
      ['GET', '/review/queue'],
      ['GET', '/review/ops'],
      ['POST', `/review/submissions/sub_${'0'.repeat(22)}/decision`],
    ] as const) {
      const res = await call(`${stack.apiUrl}${path}`, {
        method,
        headers: { ...auth(alice), 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: '{"decision":"promoted"}' } : {}),
      });
      expect(res.status, `${method} ${path}`).toBe(401);
    }
    const session = await login('rev@example.com', PASSWORD);
    expect(session.status).toBe(201);
    secrets.push(session.cookie.split('=')[1] ?? '', session.csrf);
    expect((await call(`${stack.apiUrl}/review/queue`, { headers: { cookie: session.cookie } })).status).toBe(200);
    const asAgent = await call(`${stack.apiUrl}/v1/frame-submissions`, {
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
    });
    expect(asAgent.status).toBe(401);
    const form = new FormData();
    form.append(
      'metadata',
      new Blob([JSON.stringify({ agent_slug: 'alice', channel_slug: 'news', date: '20260101' })], {
        type: 'application/json',
      }),
    );
    const post = await call(`${stack.apiUrl}/v1/frame-submissions`, {
      method: 'POST',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf, 'idempotency-key': randomUUID() },
      body: form,
    });
    expect(post.status).toBe(401);
    checks += 6;
  });

  it('rate-limits login guessing', async () => {
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await login('guess@example.com', `wrong-${i}`));
    expect(answers.slice(0, 3).map((a) => a.status)).toEqual([401, 401, 401]);
    expect(answers[3]!.status).toBe(429);
    expect(answers[3]!.code).toBe('rate_limited');
    expect(Number(answers[3]!.retryAfter)).toBeGreaterThan(0);
    // Even the right password waits now: guessing cannot continue.
    expect((await login('guess@example.com', PASSWORD)).status).toBe(429);
    checks += 3;
  });

  it('makes local upload URLs one-time and expiring, and free of the API key', { timeout: 90_000 }, async () => {
    const first = await createUpload(alice, 'alice');
    expect(first.status).toBe(201);
    const url = String(first.body?.['upload_url']);
    secrets.push(new URL(url).searchParams.get('token') ?? url);
    expect(url).not.toContain(alice);
    const tampered = new URL(url);
    tampered.searchParams.set('token', `${tampered.searchParams.get('token')}x`);
    const forged = await uploadTo(tampered.toString());
    expect(forged.status, 'a forged token').toBeGreaterThanOrEqual(400);
    expect(forged.status).toBeLessThan(500);
    expect((await uploadTo(url)).status).toBe(201);
    const again = await uploadTo(url);
    expect(again.status, 'second use of a one-time URL').toBe(409);

    const late = await createUpload(alice, 'alice');
    await stack.query("UPDATE media_uploads SET expires_at = now() - interval '1 second' WHERE id = $1", [
      late.body?.['id'],
    ]);
    expect((await uploadTo(String(late.body?.['upload_url']))).status, 'an expired URL').toBe(410);
    checks += 5;
  });

  it('sends security headers and no CORS headers', async () => {
    for (const path of ['/healthz', '/v1/frame-submissions', '/review/queue', '/nowhere']) {
      const res = await fetch(`${stack.apiUrl}${path}`, { headers: { origin: 'https://evil.example' } });
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('x-frame-options'), path).toBeTruthy();
      expect(res.headers.get('content-security-policy'), path).toBeTruthy();
      expect(res.headers.get('strict-transport-security'), path).toBeTruthy();
      expect(res.headers.get('referrer-policy'), path).toBeTruthy();
      expect(res.headers.get('x-powered-by'), path).toBeNull();
      expect(res.headers.get('access-control-allow-origin'), path).toBeNull();
    }
    const preflight = await fetch(`${stack.apiUrl}/v1/frame-submissions`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-headers')).toBeNull();
    checks += 4 * 7 + 2;
  });

  it('never logs secrets: API keys, passwords, session cookies, CSRF and upload tokens', async () => {
    // Secrets also sent where they do not belong: a bad key, a password in a query string.
    const fake = `fd_live_${'Z'.repeat(33)}`;
    secrets.push(fake);
    // Each request's log line (it carries the request id sent) is waited for, not a fixed pause:
    // read before the API wrote it, the logs would hold no secret whatever the API did.
    const ids = ['secret-check-bad-key', 'secret-check-query'];
    await call(`${stack.apiUrl}/v1/frame-submissions`, { headers: { ...auth(fake), 'x-request-id': ids[0]! } });
    await call(`${stack.apiUrl}/v1/frame-submissions?cursor=${encodeURIComponent(PASSWORD)}`, {
      headers: { ...auth(alice), 'x-request-id': ids[1]! },
    });
    while (!ids.every((id) => stack.apiOutput().includes(`"request_id":"${id}"`)))
      await new Promise((r) => setTimeout(r, 50));
    const logs = stack.apiOutput() + stack.workers.map((w) => w.output()).join('');
    expect(logs.length).toBeGreaterThan(0);
    const leaked = secrets.filter((s) => s.length >= 8 && logs.includes(s)).map((s) => `${s.slice(0, 10)}…`);
    reportFigures('access', {
      checks: checks + secrets.length,
      secrets_checked: secrets.length,
      log_bytes: logs.length,
      leaked: leaked.length,
    });
    expect(leaked).toEqual([]);
  });

  it('sends CORS headers only to the configured origins', async () => {
    await stack.api().stop();
    await stack.startApi({ CORS_ORIGINS: 'https://app.example' });
    const preflight = (origin: string) =>
      fetch(`${stack.apiUrl}/v1/frame-submissions`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,idempotency-key,content-type',
        },
      });
    const allowed = await preflight('https://app.example');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const other = await preflight('https://evil.example');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  }, 90_000);
});
