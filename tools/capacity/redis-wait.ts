// What `WAIT 1` after the image intake's XADD would cost (docs/performance.md "Redis WAIT"): on
// the Sentinel engine (three Redis, min-replicas-to-write 1), N intake-sized XADDs one after the
// other, then N each followed by `WAIT 1 <timeout>`, through the Sentinels as the app connects.
// Reports latency per add (p50, p99, max) and adds per second, sequential and 16 at once.
//   npx tsx --tsconfig tsconfig.base.json tools/capacity/redis-wait.ts [adds=2000]
import { Redis } from 'ioredis';
import { SENTINEL_MASTER, SENTINEL_PORTS, startEngine } from '@framedesk/testing';

const adds = Number(process.argv[2] ?? 2000);
await startEngine('sentinel');
const redis = new Redis({
  sentinels: SENTINEL_PORTS.map((port) => ({ host: '127.0.0.1', port })),
  name: SENTINEL_MASTER,
  failoverDetector: true,
});
const stream = '{redis-wait}:intake:0';
const body = [
  'submission',
  'sub_01JDQ0000000000000000000',
  'backlog',
  '1',
  'origin',
  '{"requestId":"0123456789abcdef"}',
];

async function one(wait: boolean): Promise<number> {
  const started = process.hrtime.bigint();
  if (wait) {
    // One round trip, as the intake would send it (a pipeline: XADD then WAIT).
    const replies =
      (await redis
        .pipeline()
        .xadd(stream, '*', ...body)
        .wait(1, 100)
        .exec()) ?? [];
    const error = replies.find(([e]) => e)?.[0];
    if (error) throw error;
    if (Number(replies[1]?.[1]) < 1) throw new Error('WAIT: no replica acknowledged within 100 ms');
  } else await redis.xadd(stream, '*', ...body);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function run(wait: boolean, parallel: number) {
  const times: number[] = [];
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next++ < adds) times.push(await one(wait));
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(2);
  return { wait, parallel, p50_ms: at(0.5), p99_ms: at(0.99), max_ms: at(1), adds_per_s: Math.round(adds / seconds) };
}

const results = [];
for (const parallel of [1, 16]) for (const wait of [false, true]) results.push(await run(wait, parallel));
await redis.del(stream);
redis.disconnect();
console.table(results);
