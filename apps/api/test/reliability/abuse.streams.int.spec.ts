// Abuse of the live stream (GET /review/events) against a real API process (issue 40, points 4
// and 8): 200 streams opened by five reviewers (four sessions each, 10 at once), then readers that
// stop reading while 12 MB of changes go out. Each stream past REVIEW_STREAMS_PER_SESSION /
// _PER_REVIEWER closes the oldest, a stalled reader is cut off, the registry of open streams
// empties, and throughout (the abuse harness, abuse-support.ts) the API process's RSS stays under
// ABUSE_RSS_BOUND_MIB, /healthz answers within ABUSE_HEALTHZ_BOUND_MS, and a bystander reviewer and
// an agent are served.
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { apiKeysService, createReviewer, reviewerSessionsService } from '@framedesk/access';
import { createDatabase, type Database } from '@framedesk/db';
import { createRedis, type Redis, reviewChangesKeys } from '@framedesk/queues';
import { ReviewerClient } from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duringAbuse, expectHeld, processRss } from './abuse-support';
import { API_RSS_BOUND_MIB, type RelStack, reportFigures, startRelStack, submitFrame } from './harness';

const PER_SESSION = 4;
const PER_REVIEWER = 10;

interface Stream {
  readonly events: string[];
  ended(): boolean;
  close(): void;
}

/** An event stream read in the background: the names of its events, and whether it ended. */
async function openStream(url: string, cookie: string): Promise<Stream> {
  const controller = new AbortController();
  const res = await fetch(`${url}/review/events`, { headers: { cookie }, signal: controller.signal });
  if (res.status !== 200) throw new Error(`GET /review/events answered ${res.status}`);
  const events: string[] = [];
  let ended = false;
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const name = /^event: (.+)$/m.exec(buffer.slice(0, end))?.[1];
          if (name) events.push(name);
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      // aborted by close()
    }
    ended = true;
  })();
  return { events, ended: () => ended, close: () => controller.abort() };
}

/** CPU time (user + system) a process has used, in seconds (Linux). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** `framedesk_review_streams` of the API process. */
async function openOnServer(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const match = /^framedesk_review_streams(?:\{[^}]*\})? (\d+)$/m.exec(text);
  return match ? Number(match[1]) : NaN;
}

describe('abuse: the live stream', () => {
  let stack: RelStack;
  let db: Database;
  let redis: Redis;
  let newsId: string;

  beforeAll(async () => {
    stack = await startRelStack({
      workers: 0,
      env: {
        LOG_LEVEL: 'warn',
        REVIEW_STREAMS_PER_SESSION: String(PER_SESSION),
        REVIEW_STREAMS_PER_REVIEWER: String(PER_REVIEWER),
      },
    });
    db = createDatabase({ url: stack.env['DATABASE_URL']!, poolSize: 2 });
    redis = createRedis(stack.env['REDIS_URL']!, 'producer');
    newsId = (await db.repos.channels.ensure('news')).channel.id;
  });
  afterAll(async () => {
    redis?.disconnect();
    await db?.close();
    await stack?.stop();
  });

  /** A new session of the reviewer, opened as a sign-in does (without a password's scrypt each time). */
  const signIn = async (email: string) => {
    const reviewer = (await db.repos.reviewers.findByEmail(email))!;
    const sessions = reviewerSessionsService(db, redis, { ttlHours: 1, attemptsPer15Minutes: 10, keyPrefix: 'unused' });
    const client = new ReviewerClient(stack.apiUrl);
    client.cookie = `fd_session=${(await sessions.open(reviewer)).token}`;
    return client;
  };

  it('holds 200 streams to the limits, cuts off readers that stop reading, and keeps serving everyone else', async () => {
    const reviewers = ['r0', 'r1', 'r2', 'r3', 'r4'].map((n) => `${n}@example.com`);
    for (const email of [...reviewers, 'bystander@example.com'])
      await createReviewer(db, { email, role: 'reviewer', channels: ['news'] });
    for (const email of ['a0@example.com', 'a1@example.com']) await createReviewer(db, { email, role: 'admin' });
    const agent = await db.repos.agents.create('bot');
    await db.repos.agents.allowChannels(agent.id, [newsId]);
    const agentKey = (await apiKeysService(db).issue(agent.id)).key;

    const bystander = await signIn('bystander@example.com');
    const bystanderStream = await openStream(stack.apiUrl, bystander.cookie);
    const watched = {
      url: stack.apiUrl,
      rss: processRss(stack.api().child.pid!),
      bystander: async () => {
        const res = await bystander.call('GET', '/review/queue');
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`bystander's queue: ${res.status}`);
      },
    };
    const { result, report } = await duringAbuse(watched, async () => {
      // 200 streams at once: five reviewers, four sessions each, ten streams per session.
      const sessions: ReviewerClient[] = [];
      for (const email of reviewers) for (let i = 0; i < 4; i++) sessions.push(await signIn(email));
      // In waves of 10 at once (half the sessions, one stream each), as fast as the API answers.
      const cpuBefore = cpuSeconds(stack.api().child.pid!);
      const streams: Stream[] = [];
      for (let wave = 0; wave < 20; wave++) {
        const half = sessions.filter((_, i) => i % 2 === wave % 2);
        streams.push(...(await Promise.all(half.map((s) => openStream(stack.apiUrl, s.cookie)))));
      }
      const cpuPerStreamMs = Math.round(((cpuSeconds(stack.api().child.pid!) - cpuBefore) * 1000) / streams.length);
      const kept = reviewers.length * Math.min(PER_REVIEWER, 4 * PER_SESSION);
      await expect.poll(() => streams.filter((s) => s.ended()).length, { timeout: 30_000 }).toBe(200 - kept);
      expect(streams.filter((s) => s.ended()).every((s) => s.events.includes('closed'))).toBe(true);
      const openAfterStorm = await openOnServer(stack.apiUrl);
      expect(openAfterStorm).toBe(kept + 1);
      streams.forEach((s) => s.close());
      await expect.poll(() => openOnServer(stack.apiUrl), { timeout: 30_000 }).toBe(1);

      // Readers that stop reading: two admins (every change is theirs), two sessions, four streams each.
      const stalled: Socket[] = [];
      let cutOff = 0;
      for (const email of ['a0@example.com', 'a1@example.com'])
        for (let i = 0; i < 2; i++) {
          const { cookie } = await signIn(email);
          for (let j = 0; j < PER_SESSION; j++) {
            const socket = connect(stack.apiPort, '127.0.0.1');
            socket.on('error', () => undefined);
            socket.on('close', () => cutOff++);
            socket.write(`GET /review/events HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\n\r\n`);
            socket.pause();
            stalled.push(socket);
          }
        }
      await expect.poll(() => openOnServer(stack.apiUrl), { timeout: 30_000 }).toBe(stalled.length + 1);
      // 12 MB of changes (4 KB each, of a channel the bystander is not in), 100 per round trip: more
      // than a stalled socket's kernel buffers (4 MB sent, 128 KB received here) and the 256 KiB bound.
      const stream = reviewChangesKeys(stack.env['REDIS_PREFIX']!).stream;
      const padding = 'x'.repeat(4000);
      for (let batch = 0; batch < 30; batch++) {
        const pipeline = redis.pipeline();
        for (let i = 0; i < 100; i++) {
          const change = { kind: 'status', id: `sub_${batch}_${i}_${padding}`, channel: 'chn_elsewhere' };
          pipeline.xadd(stream, 'MAXLEN', '~', '1000', '*', 'change', JSON.stringify(change));
        }
        await pipeline.exec();
        await new Promise((r) => setTimeout(r, 100)); // about 4 MB/s: a busy installation's changes, but large
      }
      await expect.poll(() => openOnServer(stack.apiUrl), { timeout: 60_000 }).toBe(1);
      stalled.forEach((s) => s.resume());
      await expect.poll(() => cutOff, { timeout: 30_000 }).toBe(stalled.length);

      // Everyone else is still served: the bystander's stream hears its channel, the agent submits.
      await redis.xadd(stream, '*', 'change', JSON.stringify({ kind: 'claim', id: 'sub_sentinel', channel: newsId }));
      await expect.poll(() => bystanderStream.events.includes('change'), { timeout: 30_000 }).toBe(true);
      const frame = await submitFrame(stack.apiUrl, agentKey, { agent: 'bot', channel: 'news' });
      return { streams, cpuPerStreamMs, openAfterStorm, kept, cutOff, frame };
    });
    const { streams, cpuPerStreamMs, openAfterStorm, kept, cutOff, frame } = result;
    bystanderStream.close();

    reportFigures('abuse-streams', {
      streams_opened: streams.length,
      api_cpu_ms_per_stream_opened: cpuPerStreamMs,
      streams_kept: openAfterStorm - 1,
      closed_as_too_many: 200 - kept,
      stalled_readers_cut_off: cutOff,
      flood_mb: 12,
      ...report,
    });
    expect(frame.status).toBe(202);
    expectHeld(report);
    // The API process alone, without vitest in it: held to the tighter bound of a separate API too.
    expect(report.maxRssMiB).toBeLessThan(API_RSS_BOUND_MIB);
  });
});
