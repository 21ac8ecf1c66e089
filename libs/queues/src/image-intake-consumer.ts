import type { Redis } from 'ioredis';
import {
  entryFields,
  forgetSilentConsumers,
  INTAKE_GROUP,
  type IntakeEntry,
  intakeKeys,
  parseEntry,
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

type ReadReply = [key: string, entries: RawEntry[]][] | null;

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
function parseReadReply(keys: readonly string[], reply: ReadReply) {
  const entries: IntakeEntry[] = [];
  const unreadable: Pick<IntakeEntry, 'id' | 'band'>[] = [];
  for (const [key, raw] of reply ?? []) {
    const band = keys.indexOf(key);
    for (const item of raw) {
      const entry = parseEntry(band, item);
      if (entry) entries.push(entry);
      else unreadable.push({ id: item[0], band });
    }
  }
  return { entries: entries.sort((a, b) => a.band - b.band), unreadable };
}

/** What one consumer says to its group: read, acknowledge, renew, take back, put back. */
function intakeGroup(connection: Redis, reader: Redis, options: IntakeConsumerOptions) {
  const { prefix, consumer } = options;
  const keys = intakeKeys(prefix);
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

    /** Up to `count` new entries of each band, lowest band first (blocks up to `blockMs`). */
    async read(count: number): Promise<IntakeEntry[]> {
      if (!groupsReady) await ensureGroups();
      let reply: ReadReply;
      try {
        // The typed method: `call` hands the reply back flattened.
        reply = (await (reader.xreadgroup as (...args: (string | number)[]) => Promise<unknown>)(
          'GROUP',
          INTAKE_GROUP,
          consumer,
          'COUNT',
          count,
          'BLOCK',
          options.blockMs ?? 5_000,
          'STREAMS',
          ...keys,
          ...keys.map(() => '>'),
        )) as ReadReply;
      } catch (error) {
        // Redis lost the groups (flushed): made again before the next read.
        if (error instanceof Error && error.message.includes('NOGROUP')) groupsReady = false;
        throw error;
      }
      const { entries, unreadable } = parseReadReply(keys, reply);
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
     * Takes what any consumer has held longer than the lock (XAUTOCLAIM), hands each entry not
     * this consumer's own to `reclaimed` and acknowledges it; then trims what was acknowledged.
     */
    async reclaim(isHeld: (id: string) => boolean): Promise<void> {
      for (const [band, key] of keys.entries()) {
        const [, claimed] = (await connection.xautoclaim(
          key,
          INTAKE_GROUP,
          consumer,
          options.lockDurationMs,
          '0-0',
          'COUNT',
          100,
        )) as [string, RawEntry[]];
        for (const item of claimed) {
          if (isHeld(item[0])) continue;
          const entry = parseEntry(band, item);
          if (entry) await options.reclaimed(entry);
          await acknowledge({ id: item[0], band });
        }
      }
      await trimIntake(connection, prefix);
    },

    /** Back to the end of their band, for another consumer. */
    async putBack(entries: readonly IntakeEntry[]): Promise<void> {
      if (entries.length === 0) return;
      const pipeline = connection.pipeline();
      for (const entry of entries) {
        const key = keys[entry.band]!;
        pipeline.xadd(key, '*', ...entryFields(entry.submissionId, entry.origin)).xack(key, INTAKE_GROUP, entry.id);
      }
      await pipeline.exec();
    },
  };
}

/**
 * Consumes the intake: reads entries of every band in one XREADGROUP, starts them lowest band
 * first, `2 × concurrency` in flight of which `concurrency` hold a CPU slot, and acknowledges
 * each (XACK) when it has run. Every half lock the stalled check renews what this consumer
 * holds, takes back what silent consumers held and trims what was acknowledged. Blocking reads
 * use a connection of their own.
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
        held.delete(entry.id);
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
        for (const entry of entries) held.set(entry.id, entry);
        buffer.push(...entries);
      } catch (error) {
        if (closing) break;
        options.onError(error, 'intake read failed');
        await new Promise((r) => setTimeout(r, 1_000));
      }
    }
  })();

  let checks = 0;
  const timer = setInterval(() => {
    if (!group.ready()) return;
    const forget = ++checks % 40 === 0;
    void group
      .renew(held.values())
      .then(() => group.reclaim((id) => held.has(id)))
      .then(() =>
        forget
          ? forgetSilentConsumers(
              connection,
              options.prefix,
              options.consumer,
              options.forgetConsumersAfterMs ?? 3_600_000,
            )
          : 0,
      )
      .catch((error: unknown) => options.onError(error, 'intake stalled check failed'));
  }, options.lockDurationMs / 2);
  timer.unref();

  return {
    async close() {
      closing = true;
      clearInterval(timer);
      reader.disconnect();
      await loop;
      await Promise.all(running);
      await group
        .putBack(buffer.splice(0))
        .catch((error: unknown) => options.onError(error, 'intake entries not put back'));
    },
  };
}
