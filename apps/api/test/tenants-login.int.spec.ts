// Login throttling under parallel requests, and the password-check cap that keeps the process responsive.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReviewerClient, type ReviewHarness, startReviewHarness } from './review-harness';

const PASSWORD = 'correct horse battery';
const LIMIT = 2;

describe('login throttling', () => {
  let h: ReviewHarness;

  beforeAll(async () => {
    // TRUST_PROXY=1: the test plays the proxy and chooses each request's client address.
    h = await startReviewHarness({
      LOGIN_ATTEMPTS_PER_15_MINUTES: String(LIMIT),
      LOGIN_CONCURRENT_CHECKS: '1',
      TRUST_PROXY: '1',
    });
    await h.seedReviewer('erin@example.com', PASSWORD);
  });
  afterAll(async () => h?.close());

  const login = (email: string, password: string, from: string) =>
    fetch(`${h.url}/review/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
      body: JSON.stringify({ email, password }),
    });

  it('evaluates at most LOGIN_ATTEMPTS_PER_15_MINUTES of 40 simultaneous wrong passwords; the rest are 429', async () => {
    const responses = await Promise.all(
      Array.from({ length: 40 }, () => login('erin@example.com', 'wrong password', '198.51.100.7')),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40 - LIMIT);
    const refused = responses.find((r) => r.status === 429)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The right password is refused from that address too...
    expect((await login('erin@example.com', PASSWORD, '198.51.100.7')).status).toBe(429);
    // ...but the reviewer is not locked out from everywhere.
    expect((await login('erin@example.com', PASSWORD, '203.0.113.9')).status).toBe(201);
  });

  it('keys IPv6 clients by their /64', async () => {
    for (let i = 1; i <= LIMIT; i++) {
      expect((await login(`nobody${i}@example.com`, 'wrong password', `2001:db8:7:7::${i}`)).status).toBe(401);
    }
    expect((await login('erin@example.com', PASSWORD, '2001:db8:7:7:ffff::1')).status).toBe(429);
    expect((await login('erin@example.com', PASSWORD, '2001:db8:7:8::1')).status).toBe(201);
  });

  it('caps concurrent password checks (503 + Retry-After) and /healthz answers during a burst of 100 logins', async () => {
    // 100 different addresses and emails: no throttle applies, only the cap on password checks.
    const burst = Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        login(`burst${i}@example.com`, 'wrong password', `192.0.2.${i + 1}`).then((r) => ({
          status: r.status,
          retryAfter: r.headers.get('retry-after'),
        })),
      ),
    );
    await new Promise((r) => setTimeout(r, 50));
    // /healthz is answered while password checks still queue: before the burst has finished.
    let burstDone = false;
    void burst.then(() => (burstDone = true));
    const health = await fetch(`${h.url}/healthz`);
    const answeredDuringBurst = !burstDone;
    const results = await burst;
    expect(health.status).toBe(200);
    expect(answeredDuringBurst).toBe(true);
    const busy = results.filter((r) => r.status === 503);
    expect(results.every((r) => r.status === 401 || r.status === 503)).toBe(true);
    // One check runs, four wait (LOGIN_CONCURRENT_CHECKS=1); every other login is turned away at once.
    // Arriving together, 95 are turned away; on a loaded machine the 100 arrive spread over the time
    // a few checks take and a few more get their turn, so the bound is half (without the cap: none).
    expect(busy.length).toBeGreaterThanOrEqual(50);
    expect(busy.every((r) => Number(r.retryAfter) > 0)).toBe(true);
  });

  it('answers 401, not 500, to a malformed session cookie', async () => {
    const c = new ReviewerClient(h.url);
    c.cookie = '__Host-fd_session=%E0%A4%A';
    expect((await c.call('GET', '/review/session')).status).toBe(401);
  });

  it('answers 400 to a review cursor that decodes to garbage', async () => {
    const res = await login('erin@example.com', PASSWORD, '203.0.113.50');
    const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
    for (const value of [{ c: 'not a date', i: 'sub_x' }, { c: '2026-01-01T00:00:00Z', i: "'; DROP" }, null]) {
      const cursor = Buffer.from(JSON.stringify(value)).toString('base64url');
      const queue = await fetch(`${h.url}/review/queue?cursor=${cursor}`, { headers: { cookie } });
      expect(queue.status).toBe(400);
      const timeline = await fetch(`${h.url}/review/channels/news/timeline?cursor=${cursor}`, { headers: { cookie } });
      expect([400, 404]).toContain(timeline.status);
    }
  });
});
