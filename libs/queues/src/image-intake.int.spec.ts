// The image intake on a real Redis: new images reach a worker in band order, each runs once,
// what a dead consumer held is taken back, what a closing one had not started is put back, and
// acknowledged entries are trimmed away.
import { createTestRedisPrefix, testRedisUrl } from '@framedesk/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, type Redis } from './connection';
import { consumeIntake, type IntakeConsumer, type IntakeConsumerOptions } from './image-intake-consumer';
import {
  addToIntake,
  forgetSilentConsumers,
  INTAKE_GROUP,
  type IntakeEntry,
  intakeBand,
  intakeEntries,
  intakeKey,
  intakeStats,
  trimIntake,
} from './image-intake';

const waitFor = async (what: string, check: () => boolean | Promise<boolean>, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

it('puts a frame in the band of its agent’s backlog: 1, 2–3, 4–15, 16–63, 64–255, 256+', () => {
  expect([1, 2, 3, 4, 15, 16, 63, 64, 255, 256, 100_000].map(intakeBand)).toEqual([0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
  expect(intakeBand(0)).toBe(0);
});

describe('image intake (real Redis)', () => {
  const prefix = createTestRedisPrefix();
  const p = prefix.prefix;
  let redis: Redis;
  let producer: Redis;
  const consumers: IntakeConsumer[] = [];
  beforeAll(() => {
    redis = createRedis(testRedisUrl(), 'worker');
    producer = createRedis(testRedisUrl(), 'worker');
  });
  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((c) => c.close()));
    await prefix.cleanup();
  });
  afterAll(() => {
    redis.disconnect();
    producer.disconnect();
  });

  const consume = (options: Partial<IntakeConsumerOptions> & Pick<IntakeConsumerOptions, 'process'>) => {
    const consumer = consumeIntake(redis, {
      prefix: p,
      consumer: 'test',
      concurrency: 1,
      lockDurationMs: 60_000,
      blockMs: 200,
      reclaimed: async () => undefined,
      onError: (error) => {
        throw error;
      },
      ...options,
    });
    consumers.push(consumer);
    return consumer;
  };

  it('runs what waits lowest band first, each entry once, and counts it waiting then gone', async () => {
    for (const [submissionId, backlog] of [
      ['flood-40', 40],
      ['flood-8', 8],
      ['polite-1', 1],
      ['polite-2', 2],
    ] as const) {
      await addToIntake(producer, p, { submissionId, backlog, origin: { requestId: `req-${submissionId}` } });
    }
    const stats = await intakeStats(producer, p);
    expect(stats).toMatchObject({ waiting: 4, running: 0 });
    expect(stats.oldestWaitingSince).toBeGreaterThan(Date.now() - 60_000);

    const ran: IntakeEntry[] = [];
    consume({ process: async (entry) => void ran.push(entry) });
    await waitFor('all four run', () => ran.length === 4);
    expect(ran.map((e) => e.submissionId)).toEqual(['polite-1', 'polite-2', 'flood-8', 'flood-40']);
    expect(ran[0]).toMatchObject({ band: 0, origin: { requestId: 'req-polite-1' } });
    await waitFor('acknowledged', async () => (await intakeStats(producer, p)).running === 0);
    expect(await intakeStats(producer, p)).toEqual({
      waiting: 0,
      running: 0,
      oldestWaitingSince: null,
      oldestEntryAt: null,
    });
    // Acknowledged entries stay until trimmed; trimming leaves nothing behind.
    expect(await trimIntake(producer, p)).toBe(4);
    expect(await intakeEntries(producer, p)).toEqual([]);
  });

  it('takes back what a silent consumer held past the lock, and hands it on once', async () => {
    await addToIntake(producer, p, { submissionId: 'held-by-a-dead-worker', backlog: 1 });
    // A consumer that reads, then dies without acknowledging.
    await redis.xgroup('CREATE', intakeKey(p, 0), INTAKE_GROUP, '0', 'MKSTREAM').catch(() => undefined);
    await producer.xreadgroup('GROUP', INTAKE_GROUP, 'dead', 'COUNT', 1, 'STREAMS', intakeKey(p, 0), '>');
    const held = await intakeStats(producer, p);
    expect(held).toMatchObject({ waiting: 0, running: 1 });
    expect(held.oldestEntryAt).not.toBeNull();

    const reclaimed: string[] = [];
    const ran: string[] = [];
    consume({
      lockDurationMs: 400,
      process: async (entry) => void ran.push(entry.submissionId),
      reclaimed: async (entry) => void reclaimed.push(entry.submissionId),
    });
    await waitFor('taken back', () => reclaimed.length > 0);
    await waitFor('acknowledged', async () => (await intakeStats(producer, p)).running === 0);
    await new Promise((r) => setTimeout(r, 600)); // another stalled check: nothing more to take
    expect(reclaimed).toEqual(['held-by-a-dead-worker']);
    expect(ran).toEqual([]);
  });

  it('forgets consumers silent past the limit with nothing pending, and keeps the others', async () => {
    const key = intakeKey(p, 0);
    await redis.xgroup('CREATE', key, INTAKE_GROUP, '0', 'MKSTREAM');
    for (let i = 0; i < 4; i++) await addToIntake(producer, p, { submissionId: `frame-${i}`, backlog: 1 });
    /** `name` takes one entry, and acknowledges it unless it keeps it pending. */
    const take = async (name: string, keepPending = false) => {
      const reply = (await producer.xreadgroup('GROUP', INTAKE_GROUP, name, 'COUNT', 1, 'STREAMS', key, '>')) as [
        string,
        [string, string[]][],
      ][];
      if (!keepPending) await producer.xack(key, INTAKE_GROUP, reply[0]![1][0]![0]);
    };
    await take('holding', true);
    await take('gone');
    await take('me');
    await new Promise((r) => setTimeout(r, 150));
    await take('recent');
    expect(await forgetSilentConsumers(producer, p, 'me', 100)).toBe(1);
    const names = ((await producer.xinfo('CONSUMERS', key, INTAKE_GROUP)) as string[][]).map((c) => c[1]);
    // 'holding' has an entry pending, 'me' is the caller, 'recent' read just now.
    expect(names.sort()).toEqual(['holding', 'me', 'recent']);
  });

  it('keeps the lock of a long run: a live consumer’s entry is never taken back', async () => {
    await addToIntake(producer, p, { submissionId: 'slow', backlog: 1 });
    const reclaimed: string[] = [];
    let finish!: () => void;
    const running = new Promise<void>((resolve) => (finish = resolve));
    let started = false;
    consume({
      lockDurationMs: 300,
      process: async () => {
        started = true;
        await running;
      },
      reclaimed: async (entry) => void reclaimed.push(entry.submissionId),
    });
    await waitFor('started', () => started);
    await new Promise((r) => setTimeout(r, 1_200)); // four lock durations
    finish();
    await waitFor('acknowledged', async () => (await intakeStats(producer, p)).running === 0);
    expect(reclaimed).toEqual([]);
  });

  it('runs CPU work `concurrency` at a time while as many more entries do their I/O', async () => {
    for (const id of ['a', 'b', 'c']) await addToIntake(producer, p, { submissionId: id, backlog: 1 });
    const events: string[] = [];
    let onCpu = 0;
    let mostOnCpu = 0;
    let finishA!: () => void;
    const aStoring = new Promise<void>((resolve) => (finishA = resolve));
    consume({
      process: async (entry, cpu) => {
        const id = entry.submissionId;
        events.push(`read ${id}`);
        await cpu.acquire();
        mostOnCpu = Math.max(mostOnCpu, ++onCpu);
        events.push(`cpu ${id}`);
        await new Promise((r) => setTimeout(r, 50));
        onCpu--;
        cpu.release();
        if (id === 'a') await aStoring; // stored and recorded after its pixel work
        events.push(`end ${id}`);
      },
    });
    try {
      // Concurrency 1: two in flight, one on the CPU. b decodes while a is still storing; c
      // waits for a place in flight, not for a's CPU slot.
      await waitFor('b ended and c read', () => events.includes('end b') && events.includes('read c'));
      expect(events).not.toContain('end a');
      expect(events.indexOf('read c')).toBeGreaterThan(events.indexOf('end b'));
    } finally {
      finishA();
    }
    await waitFor('all ended', () => events.includes('end c') && events.includes('end a'));
    await waitFor('all acknowledged', async () => (await intakeStats(producer, p)).running === 0);
    expect(mostOnCpu).toBe(1);
    expect(events.filter((e) => e.startsWith('cpu'))).toEqual(['cpu a', 'cpu b', 'cpu c']);
  });

  it('on close, lets the running entries finish and puts back the ones read but not started', async () => {
    for (let i = 0; i < 3; i++) await addToIntake(producer, p, { submissionId: `frame-${i}`, backlog: 1 + i * 4 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const ran: string[] = [];
    const consumer = consume({
      process: async (entry) => {
        ran.push(entry.submissionId);
        await gate;
      },
    });
    // Concurrency 1: two in flight; all three were read at once, the third waits in the consumer.
    await waitFor('two started', () => ran.length === 2);
    const closed = consumer.close();
    release();
    await closed;
    expect(ran).toEqual(['frame-0', 'frame-1']);
    expect(await intakeStats(producer, p)).toMatchObject({ waiting: 1, running: 0 });
    const waiting = (await intakeEntries(producer, p)).map((e) => e.submissionId);
    expect(waiting).toContain('frame-2');
  });
});
