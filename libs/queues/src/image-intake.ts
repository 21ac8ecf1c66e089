import type { Redis } from 'ioredis';
import { type JobOrigin, originOf } from './registry';

/**
 * The image intake: how a new image reaches the workers. A BullMQ job costs about 35 Redis
 * commands from add to completion (its scripts keep lists, sets, locks, counters and an events
 * stream); a frame through the intake costs about three: the API's XADD, the worker's share of
 * one read, and one XACK (acknowledged entries are trimmed in bulk). Everything rarer
 * than a first run — a retry, a job held by a server fault, a job whose worker died, an
 * operator's retry, a repair, the reconciler's re-runs — goes to the `image-processing` BullMQ
 * queue, which keeps its back-off, failed-job history and operations page. docs/operations.md
 * ("Capacity") has the figures.
 *
 * Fair share between agents: a frame is added to the band of its agent's backlog (1, 2–3, 4–15,
 * 16–63, 64–255, 256+), one stream per band. A worker reads only what it can start, in one
 * script that takes the lowest band first (image-intake-consumer.ts), so whichever worker reads
 * next takes an agent's first frames ahead of a flooding agent's hundredth.
 */
export const INTAKE_BANDS = 6;
export const INTAKE_GROUP = 'workers';

export const intakeKey = (prefix: string, band: number) => `${prefix}:image-intake:${band}`;
export const intakeKeys = (prefix: string) =>
  Array.from({ length: INTAKE_BANDS }, (_, band) => intakeKey(prefix, band));

/** The band of a frame whose agent has `backlog` images waiting (itself included). */
export function intakeBand(backlog: number): number {
  if (backlog < 2) return 0;
  if (backlog < 4) return 1;
  return Math.min(INTAKE_BANDS - 1, 1 + Math.floor(Math.log2(backlog) / 2));
}

export interface IntakeEntry {
  /** The stream entry's id (its first part: when it was added, epoch ms). */
  readonly id: string;
  readonly band: number;
  readonly submissionId: string;
  readonly origin: JobOrigin;
}

/** An entry's fields: `s` the submission, `o` its origin (JSON) when it has one. */
export function entryFields(submissionId: string, origin?: JobOrigin): string[] {
  const fields = ['s', submissionId];
  if (origin && (origin.requestId || origin.trace)) fields.push('o', JSON.stringify(origin));
  return fields;
}

/** Adds a new image to the intake: one XADD. */
export async function addToIntake(
  redis: Redis,
  prefix: string,
  entry: { submissionId: string; backlog: number; origin?: JobOrigin },
): Promise<void> {
  await redis.xadd(intakeKey(prefix, intakeBand(entry.backlog)), '*', ...entryFields(entry.submissionId, entry.origin));
}

/** A stream entry as Redis answers it (fields null once deleted). */
export type RawEntry = [id: string, fields: string[] | null];

/** The entry's submission and origin; null for a deleted or foreign entry. */
export function parseEntry(band: number, [id, fields]: RawEntry): IntakeEntry | null {
  if (!fields) return null; // deleted since it was delivered
  const value = (name: string) => {
    const at = fields.findIndex((f, i) => i % 2 === 0 && f === name);
    return at < 0 ? undefined : fields[at + 1];
  };
  const submissionId = value('s');
  if (!submissionId) return null;
  let origin: JobOrigin = {};
  try {
    const raw = value('o');
    if (raw) origin = originOf({ origin: JSON.parse(raw) as unknown });
  } catch {
    // An unreadable origin only costs the log lines their request id.
  }
  return { id, band, submissionId, origin };
}

// What the group knows of one band: its pending summary, the id after which nothing has been
// delivered, and the lag (entries not yet delivered; nil when Redis cannot tell).
const GROUP_STATE = `
local function groupState(key, name)
  local ok, groups = pcall(redis.call, 'XINFO', 'GROUPS', key)
  if not ok then return nil end
  for _, group in ipairs(groups) do
    local g = {}
    for j = 1, #group, 2 do g[group[j]] = group[j + 1] end
    if g['name'] == name then
      local summary = redis.call('XPENDING', key, name)
      return { pending = summary[1], oldestPending = summary[2], lastDelivered = g['last-delivered-id'], lag = g['lag'] }
    end
  end
  return nil
end
`;

// Per band, in one round trip: entries waiting (not yet delivered), running (delivered, not
// acknowledged), the oldest waiting entry's id and the oldest running one's. An entry's id
// starts with the epoch ms it was added.
const INTAKE_STATS = `${GROUP_STATE}
local out = {}
for i, key in ipairs(KEYS) do
  local waiting, pending, oldestWaiting, oldestPending = 0, 0, '', ''
  if redis.call('EXISTS', key) == 1 then
    local state = groupState(key, ARGV[1])
    local from = '-'
    if state then
      pending = state.pending
      if state.oldestPending then oldestPending = state.oldestPending end
      from = '(' .. state.lastDelivered
    end
    local next = redis.call('XRANGE', key, from, '+', 'COUNT', 1)[1]
    if next then
      oldestWaiting = next[1]
      if state and type(state.lag) == 'number' then waiting = state.lag
      else waiting = redis.call('XLEN', key) - pending end
    end
  end
  out[i] = {waiting, pending, oldestWaiting, oldestPending}
end
return out
`;

// Acknowledged entries stay in their stream (an acknowledgement is one XACK) until this trims
// them: everything older than the oldest entry still running, or than the first not delivered.
const TRIM_ACKNOWLEDGED = `${GROUP_STATE}
local trimmed = 0
for _, key in ipairs(KEYS) do
  local state = groupState(key, ARGV[1])
  if state then
    local minid = state.oldestPending
    if not minid then
      local ms, seq = string.match(state.lastDelivered, '^(%d+)-(%d+)$')
      minid = ms .. '-' .. (tonumber(seq) + 1)
    end
    trimmed = trimmed + redis.call('XTRIM', key, 'MINID', minid)
  end
end
return trimmed
`;

export interface IntakeStats {
  readonly waiting: number;
  readonly running: number;
  /** When the oldest image not yet taken by a worker was added (epoch ms); null: none waits. */
  readonly oldestWaitingSince: number | null;
  /** When the oldest image still in the intake (waiting or running) was added; null: it is empty. */
  readonly oldestEntryAt: number | null;
}

const idTime = (id: string) => (id === '' ? null : Number(id.split('-')[0]));
const earliest = (values: (number | null)[]) =>
  values.reduce<number | null>((min, v) => (v === null ? min : min === null ? v : Math.min(min, v)), null);

/** What the intake holds, all bands together: one script, one round trip. */
export async function intakeStats(redis: Redis, prefix: string): Promise<IntakeStats> {
  const keys = intakeKeys(prefix);
  const rows = (await redis.eval(INTAKE_STATS, keys.length, ...keys, INTAKE_GROUP)) as [
    number,
    number,
    string,
    string,
  ][];
  const oldestWaitingSince = earliest(rows.map(([, , waiting]) => idTime(waiting)));
  return {
    waiting: rows.reduce((n, [waiting]) => n + Math.max(0, Number(waiting)), 0),
    running: rows.reduce((n, [, pending]) => n + Number(pending), 0),
    oldestWaitingSince,
    oldestEntryAt: earliest([oldestWaitingSince, ...rows.map(([, , , pending]) => idTime(pending))]),
  };
}

/** Up to `limit` entries of each band, waiting or running, lowest band first (tests, diagnosis). */
export async function intakeEntries(redis: Redis, prefix: string, limit = 100): Promise<IntakeEntry[]> {
  const bands = await Promise.all(
    intakeKeys(prefix).map(async (key, band) =>
      ((await redis.xrange(key, '-', '+', 'COUNT', limit)) as RawEntry[]).map((raw) => parseEntry(band, raw)),
    ),
  );
  return bands.flat().filter((entry): entry is IntakeEntry => entry !== null);
}

/** Drops acknowledged entries from the intake's streams; returns how many. */
export async function trimIntake(redis: Redis, prefix: string): Promise<number> {
  const keys = intakeKeys(prefix);
  return Number(await redis.eval(TRIM_ACKNOWLEDGED, keys.length, ...keys, INTAKE_GROUP));
}

// Removes, in one step per band, the consumers silent for ARGV[3] ms with nothing pending,
// except ARGV[2]: no read can come between the check and the removal and lose what it took.
const FORGET_SILENT = `
local removed = 0
for _, key in ipairs(KEYS) do
  local ok, consumers = pcall(redis.call, 'XINFO', 'CONSUMERS', key, ARGV[1])
  if ok then
    for _, fields in ipairs(consumers) do
      local c = {}
      for j = 1, #fields, 2 do c[fields[j]] = fields[j + 1] end
      if c['name'] ~= ARGV[2] and tonumber(c['pending']) == 0 and tonumber(c['idle']) >= tonumber(ARGV[3]) then
        redis.call('XGROUP', 'DELCONSUMER', key, ARGV[1], c['name'])
        removed = removed + 1
      end
    end
  end
end
return removed
`;

/**
 * Removes the group's consumers, except `keep`, silent for `idleMs` with nothing pending: workers
 * that died or were replaced (a live one reads every few seconds, and a consumer removed by
 * mistake comes back with its next read). Check and removal are one script, so a consumer that
 * reads meanwhile keeps its entries. Returns how many names were removed.
 */
export async function forgetSilentConsumers(
  redis: Redis,
  prefix: string,
  keep: string,
  idleMs: number,
): Promise<number> {
  const keys = intakeKeys(prefix);
  return Number(await redis.eval(FORGET_SILENT, keys.length, ...keys, INTAKE_GROUP, keep, idleMs));
}

// Adds an entry again at the end of its band and acknowledges the old one, in one step: when
// Redis refuses the XADD (maxmemory with noeviction, say), the script stops before the XACK and
// the old entry stays pending, for the stalled check to take back.
const PUT_BACK = `
redis.call('XADD', KEYS[1], '*', unpack(ARGV, 3))
return redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
`;

/**
 * Puts entries back at the end of their band, each atomically (added, then acknowledged only if
 * the add succeeded). Returns those Redis refused, still pending under this consumer's name.
 */
export async function putBackEntries(
  redis: Redis,
  prefix: string,
  entries: readonly IntakeEntry[],
): Promise<{ refused: IntakeEntry[]; error?: unknown }> {
  if (entries.length === 0) return { refused: [] };
  const pipeline = redis.pipeline();
  for (const entry of entries) {
    const fields = entryFields(entry.submissionId, entry.origin);
    pipeline.eval(PUT_BACK, 1, intakeKey(prefix, entry.band), INTAKE_GROUP, entry.id, ...fields);
  }
  const results = (await pipeline.exec()) ?? [];
  const refused = entries.filter((_, i) => !results[i] || results[i]![0]);
  const error = results.find((r) => r?.[0])?.[0] ?? undefined;
  return error === undefined ? { refused } : { refused, error };
}

/** What one stalled check found in one band: entries taken over, and ids Redis had deleted. */
export interface Reclaimed {
  readonly band: number;
  readonly claimed: RawEntry[];
  /** Pending ids whose entries were gone from the stream: dropped from the pending list by Redis. */
  readonly deleted: string[];
}

/**
 * Takes over what any consumer has held longer than `minIdleMs` (XAUTOCLAIM, up to `calls` calls
 * per band). `cursors` (one per band) keeps where the last check stopped, so a long pending list
 * is walked to its end over the checks instead of its first page looked at again and again.
 */
export async function claimStalled(
  redis: Redis,
  prefix: string,
  consumer: string,
  minIdleMs: number,
  cursors: string[],
  calls = 10,
): Promise<Reclaimed[]> {
  const found: Reclaimed[] = [];
  for (const [band, key] of intakeKeys(prefix).entries()) {
    const claimed: RawEntry[] = [];
    const deleted: string[] = [];
    for (let call = 0; call < calls; call++) {
      const [next, items, gone] = (await redis.xautoclaim(
        key,
        INTAKE_GROUP,
        consumer,
        minIdleMs,
        cursors[band] ?? '0-0',
        'COUNT',
        100,
      )) as [string, RawEntry[], string[]?];
      cursors[band] = next;
      claimed.push(...items);
      deleted.push(...(gone ?? []));
      if (next === '0-0') break;
    }
    if (claimed.length > 0 || deleted.length > 0) found.push({ band, claimed, deleted });
  }
  return found;
}
