// The image intake's races (issue 38), each on a real Redis: an entry put back when Redis
// refuses the add, entries of two bands with the same id, a consumer removed while it reads,
// a dead consumer's entry behind a long pending list, a worker that closes while its entries
// run, and fair share between three workers when one agent floods every band.
import { createTestRedisPrefix, type PrivateRedis, startPrivateRedis, testRedisUrl } from '@framedesk/testing';
import { Command } from 'ioredis';
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
  putBackEntries,
} from './image-intake';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const waitFor = async (what: string, check: () => boolean | Promise<boolean>, ms = 15_000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(20);
  }
};

type Options = Partial<IntakeConsumerOptions> & Pick<IntakeConsumerOptions, 'process'>;

function consumers(redis: () => Redis, prefix: () => string) {
  const open: IntakeConsumer[] = [];
  const errors: string[] = [];
  return {
    errors,
    consume(options: Options) {
      const consumer = consumeIntake(redis(), {
        prefix: prefix(),
        consumer: 'test',
        concurrency: 1,
        lockDurationMs: 60_000,
        blockMs: 200,
        reclaimed: async () => undefined,
        onError: (_error, what) => void errors.push(what),
        ...options,
      });
      open.push(consumer);
      return consumer;
    },
    async closeAll() {
      await Promise.all(open.splice(0).map((c) => c.close()));
      errors.splice(0);
    },
  };
}

describe('putting entries back when Redis refuses the add (private Redis at maxmemory)', () => {
  let server: PrivateRedis;
  let redis: Redis;
  const c = consumers(
    () => redis,
    () => 'fd-test-putback',
  );
  beforeAll(async () => {
    server = await startPrivateRedis();
    redis = createRedis(server.url, 'worker');
  });
  afterAll(async () => {
    await c.closeAll();
    redis?.disconnect();
    await server?.close();
  });

  it('loses no entry read but not started when Redis refuses adds as the worker closes', async () => {
    const p = 'fd-test-putback-1';
    // Three frames in three bands and a one-slot consumer (two in flight): it must not take
    // the third while it cannot start it, or at least must not drop it on close.
    for (const [id, backlog] of [
      ['frame-0', 1],
      ['frame-1', 2],
      ['frame-2', 8],
    ] as const)
      await addToIntake(redis, p, { submissionId: id, backlog });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const ran: string[] = [];
    const consumer = c.consume({
      prefix: p,
      process: async (entry) => {
        ran.push(entry.submissionId);
        await gate;
      },
    });
    await waitFor('two started', () => ran.length === 2);
    await redis.config('SET', 'maxmemory-policy', 'noeviction');
    await redis.config('SET', 'maxmemory', '1');
    try {
      const closed = consumer.close();
      release();
      await closed;
    } finally {
      await redis.config('SET', 'maxmemory', '0');
    }
    expect(ran).toEqual(['frame-0', 'frame-1']);
    // frame-2 still waits, or is still pending for the stalled check: not lost.
    const left = await intakeEntries(redis, p);
    const stats = await intakeStats(redis, p);
    expect(left.map((e) => e.submissionId)).toContain('frame-2');
    expect(stats.waiting + stats.running).toBeGreaterThanOrEqual(1);
  });

  it('acknowledges an entry put back only once Redis has added it again', async () => {
    const p = 'fd-test-putback-2';
    const key = intakeKey(p, 0);
    await addToIntake(redis, p, { submissionId: 'frame', backlog: 1 });
    await redis.xgroup('CREATE', key, INTAKE_GROUP, '0');
    const reply = (await redis.xreadgroup('GROUP', INTAKE_GROUP, 'me', 'COUNT', 1, 'STREAMS', key, '>')) as [
      string,
      [string, string[]][],
    ][];
    const [id] = reply[0]![1][0]!;
    const entry: IntakeEntry = { id, band: 0, submissionId: 'frame', origin: {} };

    await redis.config('SET', 'maxmemory-policy', 'noeviction');
    await redis.config('SET', 'maxmemory', '1');
    let refused;
    try {
      refused = await putBackEntries(redis, p, [entry]);
    } finally {
      await redis.config('SET', 'maxmemory', '0');
    }
    expect(refused.refused).toEqual([entry]);
    expect(String(refused.error)).toContain('OOM');
    // Still pending under its consumer: the stalled check takes it back once its lock lapses.
    expect(((await redis.xpending(key, INTAKE_GROUP)) as [number])[0]).toBe(1);

    expect((await putBackEntries(redis, p, [entry])).refused).toEqual([]);
    expect(((await redis.xpending(key, INTAKE_GROUP)) as [number])[0]).toBe(0);
    expect(await intakeStats(redis, p)).toMatchObject({ waiting: 1, running: 0 });
  });
});

describe('image intake races (real Redis)', () => {
  const prefix = createTestRedisPrefix();
  const p = prefix.prefix;
  let redis: Redis;
  let producer: Redis;
  const c = consumers(
    () => redis,
    () => p,
  );
  beforeAll(() => {
    redis = createRedis(testRedisUrl(), 'worker');
    producer = createRedis(testRedisUrl(), 'worker');
  });
  afterEach(async () => {
    await c.closeAll();
    await prefix.cleanup();
  });
  afterAll(() => {
    redis.disconnect();
    producer.disconnect();
  });

  it('keeps renewing an entry whose id another band’s finished entry shares', async () => {
    // Two bands' streams make the same `<ms>-0` ids.
    const id = `${Date.now()}-0`;
    await producer.xadd(intakeKey(p, 0), id, 's', 'quick');
    await producer.xadd(intakeKey(p, 1), id, 's', 'slow');
    let finish!: () => void;
    const slow = new Promise<void>((resolve) => (finish = resolve));
    const reclaimed: string[] = [];
    const ran: string[] = [];
    c.consume({
      lockDurationMs: 600,
      process: async (entry) => {
        ran.push(entry.submissionId);
        if (entry.submissionId === 'slow') await slow;
      },
      reclaimed: async (entry) => void reclaimed.push(entry.submissionId),
    });
    await waitFor('both started', () => ran.length === 2);
    await sleep(2_400); // four lock durations after `quick` finished
    finish();
    await waitFor('acknowledged', async () => (await intakeStats(producer, p)).running === 0);
    expect(reclaimed).toEqual([]);
    expect(ran.sort()).toEqual(['quick', 'slow']);
  });

  it('never removes a consumer that reads between the check and the removal', async () => {
    const key = intakeKey(p, 0);
    await redis.xgroup('CREATE', key, INTAKE_GROUP, '0', 'MKSTREAM');
    await addToIntake(producer, p, { submissionId: 'first', backlog: 1 });
    const read = ['GROUP', INTAKE_GROUP, 'gone', 'COUNT', 1, 'STREAMS', key, '>'];
    const first = (await producer.xreadgroup(
      ...(read as ['GROUP', string, string, 'COUNT', number, 'STREAMS', string, string]),
    )) as [string, [string, string[]][]][];
    await producer.xack(key, INTAKE_GROUP, first[0]![1][0]![0]);
    await sleep(150); // 'gone' is now silent past the limit, with nothing pending
    await addToIntake(producer, p, { submissionId: 'second', backlog: 1 });

    // A connection on which 'gone' reads again just before the removal is sent: after the
    // silence was looked at, before the name is deleted (the same connection keeps the order).
    const hooked = redis.duplicate();
    await hooked.ping();
    const send = hooked.sendCommand.bind(hooked);
    let fired = false;
    hooked.sendCommand = ((command: Command, ...rest: unknown[]) => {
      if (!fired && command.name.toLowerCase() !== 'xinfo') {
        fired = true;
        void send(new Command('xreadgroup', read));
      }
      return (send as (command: Command, ...rest: unknown[]) => unknown)(command, ...rest);
    }) as typeof hooked.sendCommand;
    try {
      await forgetSilentConsumers(hooked, p, 'me', 100);
    } finally {
      hooked.disconnect();
    }
    expect(fired).toBe(true);
    // 'second' was read by 'gone' and is still pending under its name: not lost.
    expect(((await producer.xpending(key, INTAKE_GROUP)) as [number])[0]).toBe(1);
    const names = ((await producer.xinfo('CONSUMERS', key, INTAKE_GROUP)) as string[][]).map((c) => c[1]);
    expect(names).toContain('gone');
  });

  it('finds a dead consumer’s entry behind more than a thousand live ones', async () => {
    const key = intakeKey(p, 0);
    await redis.xgroup('CREATE', key, INTAKE_GROUP, '0', 'MKSTREAM');
    const pipeline = producer.pipeline();
    for (let i = 0; i < 1_100; i++) pipeline.xadd(key, '*', 's', `live-${i}`);
    await pipeline.exec();
    await addToIntake(producer, p, { submissionId: 'dead-one', backlog: 1 });
    const live = (await producer.xreadgroup('GROUP', INTAKE_GROUP, 'live', 'COUNT', 1_100, 'STREAMS', key, '>')) as [
      string,
      [string, string[]][],
    ][];
    const liveIds = live[0]![1].map(([id]) => id);
    const dead = (await producer.xreadgroup('GROUP', INTAKE_GROUP, 'dead', 'COUNT', 1, 'STREAMS', key, '>')) as [
      string,
      [string, string[]][],
    ][];
    await producer.xclaim(key, INTAKE_GROUP, 'dead', 0, dead[0]![1][0]![0], 'IDLE', 10_000_000, 'JUSTID');
    // The live consumer renews its entries every 100 ms.
    const renew = setInterval(() => void producer.xclaim(key, INTAKE_GROUP, 'live', 0, ...liveIds, 'JUSTID'), 100);
    const reclaimed: string[] = [];
    try {
      c.consume({
        lockDurationMs: 1_000,
        process: async () => undefined,
        reclaimed: async (entry) => void reclaimed.push(entry.submissionId),
      });
      await waitFor('the dead one taken back', () => reclaimed.length > 0, 8_000);
    } finally {
      clearInterval(renew);
    }
    expect(reclaimed).toEqual(['dead-one']);
  });

  it('keeps renewing while it closes: no running entry is taken over by another worker', async () => {
    for (let i = 0; i < 2; i++) await addToIntake(producer, p, { submissionId: `frame-${i}`, backlog: 1 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const ran: string[] = [];
    const closing = c.consume({
      consumer: 'closing',
      lockDurationMs: 600,
      process: async (entry) => {
        ran.push(entry.submissionId);
        await gate;
      },
    });
    await waitFor('two started', () => ran.length === 2);
    const reclaimed: string[] = [];
    c.consume({
      consumer: 'other',
      lockDurationMs: 600,
      process: async (entry) => void ran.push(`other ${entry.submissionId}`),
      reclaimed: async (entry) => void reclaimed.push(entry.submissionId),
    });
    const closed = closing.close();
    await sleep(2_400); // four lock durations of a deploy's wait for running images
    release();
    await closed;
    await sleep(800);
    expect(reclaimed).toEqual([]);
    expect(ran.sort()).toEqual(['frame-0', 'frame-1']);
    expect(await intakeStats(producer, p)).toMatchObject({ waiting: 0, running: 0 });
  });

  it('three workers, one agent flooding every band: a quiet agent’s frame waits for at most six', async () => {
    // The flooder's 300 frames land in the bands of its growing backlog (1, 2–3, 4–15, …, 256+).
    const pipeline = producer.pipeline();
    for (let i = 0; i < 300; i++) pipeline.xadd(intakeKey(p, intakeBand(i + 1)), '*', 's', `flood-${i}`);
    await pipeline.exec();
    const started: string[] = [];
    const byWorker = new Map<string, number>();
    for (const name of ['w1', 'w2', 'w3']) {
      c.consume({
        consumer: name,
        process: async (entry) => {
          started.push(entry.submissionId);
          byWorker.set(name, (byWorker.get(name) ?? 0) + 1);
          await sleep(20);
        },
      });
    }
    await waitFor('every worker busy', () => byWorker.size === 3);
    await addToIntake(producer, p, { submissionId: 'quiet', backlog: 1 });
    const before = started.length;
    // What each worker holds: never more than it can start (two in flight at concurrency 1).
    // All bands at one instant (MULTI): an entry acknowledged in one band and the next read in
    // another must not both be counted.
    const perWorker = new Map<string, number>();
    const multi = producer.multi();
    for (let band = 0; band < 6; band++) multi.xinfo('CONSUMERS', intakeKey(p, band), INTAKE_GROUP);
    for (const [, list] of (await multi.exec()) ?? [])
      for (const fields of list as (string | number)[][])
        perWorker.set(String(fields[1]), (perWorker.get(String(fields[1])) ?? 0) + Number(fields[3]));
    await waitFor('the quiet frame started', () => started.includes('quiet'), 60_000);
    const floodAhead = started.indexOf('quiet') - before;
    expect(floodAhead).toBeLessThanOrEqual(3 * 2);
    expect(Math.max(...perWorker.values())).toBeLessThanOrEqual(2);
    await waitFor('all run', () => started.length === 301, 60_000);
    expect(new Set(started).size).toBe(301);
  });
});
