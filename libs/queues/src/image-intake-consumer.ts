import type { Redis } from 'ioredis';
import {
  claimStalled,
  forgetSilentConsumers,
  INTAKE_GROUP,
  type IntakeEntry,
  intakeKeys,
  parseEntry,
  putBackEntries,
  type RawEntry,
  trimIntake,
} from './image-intake';

export interface IntakeConsumerOptions {
  readonly prefix: string;
  /** This consumer's name in the group (unique per process). */
  readonly consumer: string;
  readonly concurrency: number;
  /**
   * An entry a consumer has held this long without a sign of life (its worker died) is taken
   * from it by the next stalled check of any worker; held entries are renewed every half of it.
   */
  readonly lockDurationMs: number;
  /** How long one read waits for new entries (default 5 s). */
  readonly blockMs?: number;
  /**
   * A consumer silent this long with nothing pending is a worker gone for good: its name is
   * removed from the group (default 1 hour; looked at every 40th stalled check).
   */
  readonly forgetConsumersAfterMs?: number;
  /**
   * Runs one entry. Resolving acknowledges it; rejecting leaves it held, to be taken back by
   * the stalled check once its lock lapses. `cpuSlot`: held around the entry's CPU-heavy work;
   * `concurrency` entries hold one at a time, and as many more are read, stored and recorded
   * meanwhile (two entries per slot in flight), so no core waits on a round trip.
   */
  process(entry: IntakeEntry, cpuSlot: CpuSlot): Promise<void>;
  /** An entry taken back from a consumer gone silent; resolving acknowledges it here. */
  reclaimed(entry: IntakeEntry): Promise<void>;
  onError(error: unknown, what: string): void;
}

export interface IntakeConsumer {
  /** Stops reading, lets running entries finish and puts the ones not started back. */
  close(): Promise<void>;
}

/**
 * A permit to run CPU-heavy work, from a runner that bounds how much runs at once (the intake's
 * consumer, see `process`; released on its own when the entry ends).
 */
export interface CpuSlot {
  acquire(): Promise<void>;
  release(): void;
}

/** `permits` at a time, first come first served. */
function semaphore(permits: number) {
  let free = permits;
  const waiting: (() => void)[] = [];
  return {
    acquire: () => (free > 0 ? (free--, Promise.resolve()) : new Promise<void>((resolve) => waiting.push(resolve))),
    release() {
      const next = waiting.shift();
      if (next) next();
      else free++;
    },
  };
}

/** One entry's CPU slot: acquired at most once at a time, released once. */
function cpuSlotOf(cpu: ReturnType<typeof semaphore>): CpuSlot {
  let holding = false;
  return {
    async acquire() {
      if (holding) return;
      await cpu.acquire();
      holding = true;
    },
    release() {
      if (!holding) return;
      holding = false;
      cpu.release();
    },
  };
}

/** The entries of a read, lowest band first, and those it could not read (deleted, foreign), to acknowledge. */
function parseReadReply(bands: readonly (readonly [band: number, entries: RawEntry[]])[]) {
  const entries: IntakeEntry[] = [];
  const unreadable: Pick<IntakeEntry, 'id' | 'band'>[] = [];
  for (const [band, raw] of bands) {
    for (const item of raw) {
      const entry = parseEntry(band, item);
      if (entry) entries.push(entry);
      else unreadable.push({ id: item[0], band });
    }
  }
  return { entries: entries.sort((a, b) => a.band - b.band), unreadable };
}

/** An entry's key among those a consumer holds: ids repeat across bands (`<ms>-0` in each). */
export const heldKey = (entry: Pick<IntakeEntry, 'id' | 'band'>) => `${entry.band}/${entry.id}`;

// One read of at most ARGV[3] new entries over all bands, lowest band first: each band gives
// what the lower ones left of the count. One script, so two workers' reads never interleave.
const READ_LOWEST_FIRST = `
local out = {}
local left = tonumber(ARGV[3])
for i, key in ipairs(KEYS) do
  if left <= 0 then break end
  local reply = redis.call('XREADGROUP', 'GROUP', ARGV[1], ARGV[2], 'COUNT', left, 'STREAMS', key, '>')
  if reply then
    local entries = reply[1][2]
    out[#out + 1] = {i - 1, entries}
    left = left - #entries
  end
end
return out
`;

/** What one consumer says to its group: read, acknowledge, renew, take back, put back. */
function intakeGroup(connection: Redis, reader: Redis, options: IntakeConsumerOptions) {
  const { prefix, consumer } = options;
  const keys = intakeKeys(prefix);
  const cursors = keys.map(() => '0-0');
  let groupsReady = false;

  const ensureGroups = async () => {
    for (const key of keys) {
      await connection.xgroup('CREATE', key, INTAKE_GROUP, '0', 'MKSTREAM').catch((error: Error) => {
        if (!error.message.includes('BUSYGROUP')) throw error;
      });
    }
    groupsReady = true;
  };

  const acknowledge = async (entry: Pick<IntakeEntry, 'id' | 'band'>) => {
    await connection.xack(keys[entry.band]!, INTAKE_GROUP, entry.id);
  };

  return {
    ready: () => groupsReady,
    acknowledge,

    /**
     * Up to `count` new entries, lowest band first over all bands (one script). When none
     * waits, blocks up to `blockMs` for the first to come (one per band, from the band it came
     * to: all were empty a moment before).
     */
    async read(count: number): Promise<IntakeEntry[]> {
      if (!groupsReady) await ensureGroups();
      let bands: [number, RawEntry[]][];
      try {
        bands = (await connection.eval(READ_LOWEST_FIRST, keys.length, ...keys, INTAKE_GROUP, consumer, count)) as [
          number,
          RawEntry[],
        ][];
        if (bands.length === 0) {
          // The typed method: `call` hands the reply back flattened.
          const reply = (await (reader.xreadgroup as (...args: (string | number)[]) => Promise<unknown>)(
            'GROUP',
            INTAKE_GROUP,
            consumer,
            'COUNT',
            1,
            'BLOCK',
            options.blockMs ?? 5_000,
            'STREAMS',
            ...keys,
            ...keys.map(() => '>'),
          )) as [key: string, entries: RawEntry[]][] | null;
          bands = (reply ?? []).map(([key, raw]) => [keys.indexOf(key), raw]);
        }
      } catch (error) {
        // Redis lost the groups (flushed): made again before the next read.
        if (error instanceof Error && error.message.includes('NOGROUP')) groupsReady = false;
        throw error;
      }
      const { entries, unreadable } = parseReadReply(bands);
      for (const entry of unreadable) void acknowledge(entry).catch(() => undefined);
      return entries;
    },

    /** Resets the idle time of what this consumer holds (XCLAIM to itself). */
    async renew(held: Iterable<IntakeEntry>): Promise<void> {
      const byBand = new Map<number, string[]>();
      for (const entry of held) {
        const ids = byBand.get(entry.band) ?? [];
        ids.push(entry.id);
        byBand.set(entry.band, ids);
      }
      for (const [band, ids] of byBand)
        await connection.xclaim(keys[band]!, INTAKE_GROUP, consumer, 0, ...ids, 'JUSTID');
    },

    /**
     * Takes what any consumer has held longer than the lock (XAUTOCLAIM, walking the pending
     * list from where the last check stopped), hands each entry not this consumer's own to
     * `reclaimed` and acknowledges it; then trims what was acknowledged. Pending ids whose
     * entries were deleted are reported: their frames come back through the reconciler.
     */
    async reclaim(isHeld: (entry: Pick<IntakeEntry, 'id' | 'band'>) => boolean): Promise<void> {
      for (const { band, claimed, deleted } of await claimStalled(
        connection,
        prefix,
        consumer,
        options.lockDurationMs,
        cursors,
      )) {
        for (const item of claimed) {
          if (isHeld({ id: item[0], band })) continue;
          const entry = parseEntry(band, item);
          if (entry) await options.reclaimed(entry);
          await acknowledge({ id: item[0], band });
        }
        if (deleted.length > 0)
          options.onError(
            new Error(`band ${band}: ${deleted.join(', ')}`),
            'intake entries deleted before they ran; the reconciler re-runs their frames',
          );
      }
      await trimIntake(connection, prefix);
    },

    /**
     * Back to the end of their band, for another consumer: each added again and acknowledged in
     * one script. Returns those Redis refused (still pending here, for the stalled check).
     */
    async putBack(entries: readonly IntakeEntry[]): Promise<IntakeEntry[]> {
      const { refused, error } = await putBackEntries(connection, prefix, entries);
      if (refused.length > 0)
        options.onError(
          error ?? new Error('no reply'),
          `${refused.length} intake entries not put back; left pending for the stalled check`,
        );
      return refused;
    },
  };
}

/**
 * Consumes the intake: reads at most what it can start (`2 × concurrency` in flight, of which
 * `concurrency` hold a CPU slot) over all bands, lowest band first, and acknowledges each entry
 * (XACK) when it has run. Every half lock the stalled check renews what this consumer holds,
 * takes back what silent consumers held and trims what was acknowledged. Blocking reads use a
 * connection of their own. Closing puts back what was read but not started, and keeps renewing
 * the running entries until the last has finished, so none is taken over while it runs.
 */
export function consumeIntake(connection: Redis, options: IntakeConsumerOptions): IntakeConsumer {
  const reader = connection.duplicate();
  reader.on('error', () => undefined); // reported by the reads that fail
  const group = intakeGroup(connection, reader, options);
  const buffer: IntakeEntry[] = [];
  const held = new Map<string, IntakeEntry>();
  const running = new Set<Promise<void>>();
  let closing = false;
  const cpu = semaphore(options.concurrency);
  const inFlight = 2 * options.concurrency;

  const start = (entry: IntakeEntry) => {
    const slot = cpuSlotOf(cpu);
    const run = (async () => {
      try {
        await options.process(entry, slot);
        await group.acknowledge(entry);
      } catch (error) {
        options.onError(error, 'intake entry not acknowledged; the stalled check takes it back');
      } finally {
        slot.release();
        held.delete(heldKey(entry));
      }
    })();
    running.add(run);
    void run.finally(() => running.delete(run));
  };

  const loop = (async () => {
    while (!closing) {
      if (running.size >= inFlight) {
        await Promise.race(running);
        continue;
      }
      const next = buffer.shift();
      if (next) {
        start(next);
        continue;
      }
      try {
        const entries = await group.read(inFlight - running.size);
        for (const entry of entries) held.set(heldKey(entry), entry);
        buffer.push(...entries);
      } catch (error) {
        if (closing) break;
        options.onError(error, 'intake read failed');
        await new Promise((r) => setTimeout(r, 1_000));
      }
    }
  })();

  let checks = 0;
  const stalledCheck = async () => {
    await group.renew(held.values());
    if (closing) return; // only renewing now, until the last running entry ends
    await group.reclaim((entry) => held.has(heldKey(entry)));
    if (++checks % 40 === 0)
      await forgetSilentConsumers(
        connection,
        options.prefix,
        options.consumer,
        options.forgetConsumersAfterMs ?? 3_600_000,
      );
  };
  const timer = setInterval(() => {
    if (!group.ready()) return;
    stalledCheck().catch((error: unknown) => options.onError(error, 'intake stalled check failed'));
  }, options.lockDurationMs / 2);
  timer.unref();

  return {
    async close() {
      closing = true;
      reader.disconnect();
      await loop;
      const notStarted = buffer.splice(0);
      await group.putBack(notStarted).catch((error: unknown) => {
        options.onError(error, 'intake entries not put back; left pending for the stalled check');
      });
      // Put back, or left to lapse for another worker's stalled check: no longer renewed here.
      for (const entry of notStarted) held.delete(heldKey(entry));
      await Promise.all(running);
      clearInterval(timer);
    },
  };
}
