import type { Logger } from '@framedesk/observability';
import type { QueueConsumer, QueueName, QueueReadiness, WorkerReadinessReport } from '@framedesk/queues';
import type { Need, NeedCheck } from './readiness';

export interface QueueGatesOptions {
  readonly worker: string;
  readonly queues: readonly QueueName[];
  readonly logger: Logger;
  readonly intervalMs: number;
  needs(queue: QueueName): readonly Need[];
  check(needs: ReadonlySet<Need>): Promise<Map<Need, NeedCheck>>;
  /** Starts consuming `queue` (its BullMQ worker, and for images the intake's consumer). */
  consume(queue: QueueName): QueueConsumer;
  /** After every check (publishing the report for the ops page); failures are logged, not fatal. */
  publish?(report: WorkerReadinessReport): Promise<void>;
}

export interface QueueGates {
  /** The latest check; null until the first one ends. */
  report(): WorkerReadinessReport | null;
  /** True when every served queue is being consumed. */
  ready(): boolean;
  /** Checks now (also run every `intervalMs`). */
  check(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Consumes a queue only while this machine has what its jobs need; checks again every
 * `intervalMs`, so a queue starts (or stops) without a restart. One log line per change.
 * A queue being consumed is not stopped by one check that got no answer in time (a busy machine:
 * its jobs hold themselves if the dependency is really gone); a second one in a row stops it.
 */
export function createQueueGates(options: QueueGatesOptions): QueueGates {
  const { logger } = options;
  const workers = new Map<QueueName, QueueConsumer>();
  const closing = new Set<Promise<void>>();
  const versionsLogged = new Set<Need>();
  const status = new Map<QueueName, QueueReadiness>();
  const unanswered = new Map<QueueName, number>();
  let latest: WorkerReadinessReport | null = null;
  let running: Promise<void> | null = null;
  let closed = false;

  async function tick(): Promise<void> {
    const all = new Set(options.queues.flatMap((q) => options.needs(q)));
    const results = await options.check(all);
    if (closed) return;
    for (const [need, result] of results) {
      if (result.ok && result.version && !versionsLogged.has(need)) {
        versionsLogged.add(need);
        logger.info({ tool: need, version: result.version }, `${need} found`);
      }
    }
    for (const queue of options.queues) {
      const unmet = options
        .needs(queue)
        .map((need) => results.get(need))
        .filter((r): r is Extract<NeedCheck, { ok: false }> => r !== undefined && !r.ok);
      const before = status.get(queue);
      if (unmet.length === 0) {
        unanswered.delete(queue);
        if (!workers.has(queue)) workers.set(queue, options.consume(queue));
        if (before?.status !== 'consuming') {
          status.set(queue, { status: 'consuming' });
          if (before) logger.info({ queue }, `queue ${queue}: what it needs is there again; consuming`);
        }
        continue;
      }
      const reason = unmet.map((r) => r.reason).join('; ');
      const slowOnly = unmet.every((r) => r.noAnswer === true);
      const strikes = slowOnly ? (unanswered.get(queue) ?? 0) + 1 : 0;
      unanswered.set(queue, strikes);
      if (workers.has(queue) && strikes === 1) {
        logger.warn({ queue, reason }, `queue ${queue}: ${reason}; still consuming, checked again`);
        continue;
      }
      const worker = workers.get(queue);
      if (worker) {
        workers.delete(queue);
        // Running jobs finish; no new ones are taken.
        const done = worker.close().catch((error: unknown) => logger.warn({ err: error, queue }, 'closing failed'));
        closing.add(done);
        void done.finally(() => closing.delete(done));
      }
      if (before?.reason !== reason) {
        status.set(queue, { status: 'unavailable', reason });
        logger.error(
          { queue, reason, recheckSeconds: options.intervalMs / 1000 },
          `queue ${queue} not consumed: ${reason}`,
        );
      }
    }
    latest = {
      worker: options.worker,
      checkedAt: new Date().toISOString(),
      queues: Object.fromEntries(options.queues.map((q) => [q, status.get(q)!])),
    };
    await options.publish?.(latest).catch((error: unknown) => logger.debug({ err: error }, 'readiness not published'));
  }

  const check = () => {
    running ??= tick().finally(() => (running = null));
    return running;
  };
  const timer = setInterval(
    () => void check().catch((error: unknown) => logger.warn({ err: error }, 'readiness check failed')),
    options.intervalMs,
  );
  timer.unref();

  return {
    report: () => latest,
    ready: () => latest !== null && options.queues.every((q) => status.get(q)?.status === 'consuming'),
    check,
    async close() {
      closed = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
      await Promise.all([...workers.values()].map((w) => w.close()));
      workers.clear();
      await Promise.all(closing);
    },
  };
}
