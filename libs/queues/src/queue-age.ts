import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

/**
 * How many of a queue's prioritised jobs are looked at to find its oldest: all of them up to
 * this many waiting, else the first this many in run order. It bounds one scrape's Redis time
 * (a few milliseconds) whatever the backlog.
 */
export const OLDEST_SCAN_LIMIT = 10_000;

// One script for every queue, one round trip. A queue's waiting jobs are its `wait` list (FIFO:
// pushed left, taken right, so the oldest is the last element) and its `prioritized` sorted set,
// scored priority·2³² + an insertion counter: the oldest there has the lowest counter. A job
// waits from its `timestamp` plus its `delay` (a delayed job waits only once it is due).
const OLDEST_WAITING = `
local limit = tonumber(ARGV[1])
local out = {}
for i = 1, #KEYS / 2 do
  local base = ARGV[i + 1]
  local oldest = nil
  local function consider(id)
    local f = redis.call('HMGET', base .. id, 'timestamp', 'delay')
    if f[1] then
      local since = tonumber(f[1]) + (tonumber(f[2]) or 0)
      if oldest == nil or since < oldest then oldest = since end
    end
  end
  local tail = redis.call('LINDEX', KEYS[2 * i - 1], -1)
  if tail then consider(tail) end
  local members = redis.call('ZRANGE', KEYS[2 * i], 0, limit - 1, 'WITHSCORES')
  local first, lowest = nil, nil
  for j = 1, #members, 2 do
    local counter = tonumber(members[j + 1]) % 4294967296
    if lowest == nil or counter < lowest then first, lowest = members[j], counter end
  end
  if first then consider(first) end
  out[i] = oldest and tostring(oldest) or ''
end
return out
`;

/**
 * For each queue, since when (epoch ms) its oldest waiting job has been waiting, or null when
 * none waits. Delayed and running jobs do not count: they are not waiting for a worker.
 */
export async function oldestWaitingSince(
  connection: Redis,
  queues: readonly Queue[],
  limit = OLDEST_SCAN_LIMIT,
): Promise<(number | null)[]> {
  const keys = queues.flatMap((q) => [q.keys['wait']!, q.keys['prioritized']!]);
  const bases = queues.map((q) => q.toKey(''));
  const answer = (await connection.eval(OLDEST_WAITING, keys.length, ...keys, String(limit), ...bases)) as string[];
  return answer.map((value) => (value === '' ? null : Number(value)));
}
