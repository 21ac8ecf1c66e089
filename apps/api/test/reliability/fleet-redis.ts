// What the fleet's Redis holds at a moment of the drill: its clients, its keys, the jobs stuck
// active and the locks left behind (fleet-run.ts reads it at the start of the load and at its end).
import { Redis } from 'ioredis';
import type { Fleet } from './fleet';

export async function redisFigures(fleet: Fleet) {
  const redis = new Redis(fleet.redis.url, { maxRetriesPerRequest: 1 });
  try {
    const list = String(await redis.client('LIST'))
      .trim()
      .split('\n');
    const clients = list.length - 1; // minus this one
    const clientNames: Record<string, number> = {};
    for (const line of list) {
      const name = /\bname=(\S*)/.exec(line)?.[1] || '(unnamed)';
      clientNames[name] = (clientNames[name] ?? 0) + 1;
    }
    let cursor = '0';
    const keys: string[] = [];
    do {
      const [next, batch] = await redis.scan(cursor, 'COUNT', 1000);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    // A job running now (active, its lock held: a reconcile pass that started at this instant, as
    // in the clean clone of 2026-11-29 09:25) is neither stuck nor a lock left behind. Stuck: active
    // with its lock gone; left behind: a lock of a job no longer active, or a tus upload's lock.
    const running = new Set<string>();
    let activeJobs = 0;
    for (const list of keys.filter((k) => k.endsWith(':active'))) {
      const queueKey = list.slice(0, -':active'.length);
      for (const id of await redis.lrange(list, 0, -1)) {
        const lock = `${queueKey}:${id}:lock`;
        if (keys.includes(lock) && (await redis.exists(lock))) running.add(lock);
        else activeJobs++;
      }
    }
    return {
      clients,
      clientNames,
      keys: keys.length,
      structuralKeys: keys.filter((k) => !k.includes('sub_')).length,
      lockKeys: keys.filter((k) => (k.endsWith(':lock') && !running.has(k)) || k.includes('tus-lock')),
      activeJobs,
    };
  } finally {
    redis.disconnect();
  }
}
