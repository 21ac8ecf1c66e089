// Abuse of the unauthenticated probes (issue 40, points 6 and 8) against a real API process: a
// scrape storm of /metrics and /readyz. The cluster gauges are read at most once per 5 s and
// /readyz's checks at most once per 1.5 s, so the storm costs PostgreSQL a handful of statements
// instead of thousands; throughout (the abuse harness, abuse-support.ts) the API process's RSS stays
// under ABUSE_RSS_BOUND_MIB, /healthz answers within ABUSE_HEALTHZ_BOUND_MS and another agent's
// requests succeed.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duringAbuse, expectHeld, processRss } from './abuse-support';
import { API_RSS_BOUND_MIB, call, type RelStack, reportFigures, startRelStack, submitFrame } from './harness';

const SCRAPERS = 40;

/** Transactions committed in the stack's database, once PostgreSQL's statistics have caught up. */
async function committed(pool: pg.Pool): Promise<number> {
  const read = async () =>
    Number(
      (
        await pool.query<{ n: string }>(
          'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()',
        )
      ).rows[0]!.n,
    );
  // A backend reports its statistics within a second of going idle: read until two reads agree.
  let last = await read();
  for (;;) {
    await new Promise((r) => setTimeout(r, 1_200));
    const now = await read();
    // This read's own transaction counts one per read.
    if (now - last <= 1) return now;
    last = now;
  }
}

/** `count` GETs of `paths` in turn, `SCRAPERS` at once; the statuses seen. */
async function storm(url: string, paths: string[], count: number): Promise<Record<string, number>> {
  const statuses: Record<string, number> = {};
  let next = 0;
  await Promise.all(
    Array.from({ length: SCRAPERS }, async () => {
      for (let i = next++; i < count; i = next++) {
        const res = await fetch(`${url}${paths[i % paths.length]}`);
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      }
    }),
  );
  return statuses;
}

describe('abuse: /metrics and /readyz', () => {
  let stack: RelStack;
  let pool: pg.Pool;

  beforeAll(async () => {
    stack = await startRelStack({ workers: 0 });
    pool = new pg.Pool({ connectionString: stack.env['DATABASE_URL'], max: 1 });
  });
  afterAll(async () => {
    await pool?.end();
    await stack?.stop();
  });

  it('answers a scrape storm from a few statements a few seconds, and keeps serving everyone else', async () => {
    expect(stack.apiOutput()).toContain('/metrics is open to anyone (no METRICS_TOKEN, NODE_ENV=test)');
    const key = await stack.createAgent('bot', ['news']);
    const first = await submitFrame(stack.apiUrl, key, { agent: 'bot', channel: 'news' });
    expect(first.status).toBe(202);
    const scrape = await (await fetch(`${stack.apiUrl}/metrics`)).text();
    expect(scrape).toContain('framedesk_submissions{status="received",service="api"} 1');

    // What the storm costs the database, alone: 200 scrapes of /metrics and 200 of /readyz.
    const before = await committed(pool);
    const alone = await storm(stack.apiUrl, ['/metrics', '/readyz'], 400);
    const statements = (await committed(pool)) - before;

    // The same storm again, watched, while another agent reads its frame and submits.
    const bystander = async () => {
      const res = await call(`${stack.apiUrl}/v1/frame-submissions/${String(first.body?.['id'])}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      if (res.status !== 200) throw new Error(`the agent's GET answered ${res.status}`);
    };
    const { result, report } = await duringAbuse(
      { url: stack.apiUrl, rss: processRss(stack.api().child.pid!), bystander },
      async () => ({
        watched: await storm(stack.apiUrl, ['/metrics', '/readyz'], 400),
        frame: await submitFrame(stack.apiUrl, key, { agent: 'bot', channel: 'news' }),
      }),
    );
    const { watched, frame } = result;

    reportFigures('abuse-metrics', {
      scrapes: 800,
      scrapers_at_once: SCRAPERS,
      database_transactions_for_400_scrapes: statements,
      answers_alone: alone,
      answers_watched: watched,
      ...report,
    });
    // Past one rendering and 32 waiting, a scrape is refused at once (503, Retry-After): never a 500.
    for (const statuses of [alone, watched])
      expect(Object.keys(statuses).filter((status) => !['200', '503'].includes(status))).toEqual([]);
    expect(alone['200']).toBeGreaterThanOrEqual(200);
    // Two gauges' statements per 5 s and one ping per 1.5 s: a storm of a few seconds costs a few.
    expect(statements).toBeLessThan(40);
    expect(frame.status).toBe(202);
    expectHeld(report);
    // The API process alone, without vitest in it: held to the tighter bound of a separate API too.
    expect(report.maxRssMiB).toBeLessThan(API_RSS_BOUND_MIB);
  });
});
