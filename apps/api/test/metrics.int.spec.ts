// Who reads /metrics: outside production anyone, everything; in production without METRICS_TOKEN
// anyone, but only the process's own metrics (the cluster gauges name every channel and its
// backlog); with METRICS_TOKEN only its bearer, everything.
import { afterEach, describe, expect, it } from 'vitest';
import { metricsExposure } from '../src/routes/health.routes';
import { startReviewHarness, type ReviewHarness } from './review-harness';

const SECRET = 'a-production-session-secret-of-forty-bytes';
const CLUSTER = ['framedesk_submissions{', 'framedesk_queue_depth{', 'framedesk_review_backlog_oldest_seconds{'];

describe('/metrics and the cluster gauges', () => {
  let h: ReviewHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });
  const scrape = async (authorization?: string) => {
    const res = await fetch(`${h!.url}/metrics`, { headers: authorization ? { authorization } : {} });
    return { status: res.status, text: await res.text() };
  };

  it('in production without METRICS_TOKEN, serves the process metrics to anyone but never the cluster gauges', async () => {
    h = await startReviewHarness({ NODE_ENV: 'production', SESSION_SECRET: SECRET });
    await h.seedSubmission({ channel: 'secret-desk' });
    const { status, text } = await scrape();
    expect(status).toBe(200);
    expect(text).toContain('process_resident_memory_bytes');
    expect(text).toContain('framedesk_ready');
    expect(CLUSTER.filter((name) => text.includes(name))).toEqual([]);
    expect(text).not.toContain('secret-desk');
  });

  it('in production with METRICS_TOKEN, serves the cluster gauges to its bearer only', async () => {
    h = await startReviewHarness({ NODE_ENV: 'production', SESSION_SECRET: SECRET, METRICS_TOKEN: 'scraper-token' });
    await h.seedSubmission({ channel: 'secret-desk' });
    expect((await scrape()).status).toBe(401);
    const { status, text } = await scrape('Bearer scraper-token');
    expect(status).toBe(200);
    expect(CLUSTER.filter((name) => !text.includes(name))).toEqual([]);
    expect(text).toContain('framedesk_review_backlog_oldest_seconds{channel="secret-desk",service="api"}');
  });

  it('outside production without a token, serves everything, as before', async () => {
    h = await startReviewHarness();
    await h.seedSubmission({ channel: 'open-desk' });
    const { status, text } = await scrape();
    expect(status).toBe(200);
    expect(CLUSTER.filter((name) => !text.includes(name))).toEqual([]);
  });

  it('says at start, in one line, which of the three it is', () => {
    expect(metricsExposure({ NODE_ENV: 'production' })).toMatchObject({ cluster: false });
    expect(metricsExposure({ NODE_ENV: 'production' }).line).toMatch(/^\/metrics is open \(no METRICS_TOKEN\)/);
    expect(metricsExposure({ NODE_ENV: 'production', METRICS_TOKEN: 't' })).toMatchObject({
      cluster: true,
      token: 't',
    });
    expect(metricsExposure({ NODE_ENV: 'development' })).toMatchObject({ cluster: true });
    for (const env of ['production', 'development', 'test'])
      expect(metricsExposure({ NODE_ENV: env }).line).not.toContain('\n');
  });
});
