import { Gauge, type Registry } from 'prom-client';

/** Channels reported by the review-backlog gauge: the oldest this many (bounded label cardinality). */
export const BACKLOG_CHANNELS_REPORTED = 50;

/** Where the shared state is read when scraped: libs/queues' producer and libs/db's repositories. */
export interface ClusterSources {
  readonly queues: {
    counts(): Promise<Record<string, Record<string, number>>>;
    oldestWaitingSeconds(): Promise<Record<string, number | null>>;
    workerCounts(): Promise<Record<string, number>>;
  };
  readonly submissions: { countByStatus(): Promise<Record<string, number>> };
  /** The oldest channels first, at most `limit`. */
  readonly review: { oldestWaitingPerChannel(limit: number): Promise<readonly { channel: string; since: Date }[]> };
  /** Frames waiting past their review policy's `due`, per channel (docs/policies.md). */
  readonly overdue?: { overduePerChannel(now: Date): Promise<readonly { channel: string; overdue: number }[]> };
}

/** How long one reading of the shared state answers every scrape: at most one read per gauge in this time. */
export const CLUSTER_GAUGES_MAX_AGE_MS = 5_000;

export interface ClusterGaugesOptions {
  /** Default CLUSTER_GAUGES_MAX_AGE_MS. */
  readonly maxAgeMs?: number;
  readonly now?: () => number;
}

type Sample = readonly [Record<string, string>, number];

/**
 * State shared by every process (queues in Redis, submissions in PostgreSQL), read when
 * scraped, each with one statement or one round trip, by every API and worker: any one of them
 * answers, even when all workers are down. Aggregate with `max by (…)` across instances.
 *
 * A reading is kept for `maxAgeMs` (5 s) and shared by the scrapes that come meanwhile, those
 * waiting on it included: whatever the scrape rate, each gauge costs one statement or round trip
 * per 5 s. A failed reading is kept as long (its source is down: no sample, rather than a failed
 * scrape; framedesk_ready says why).
 */
export function registerClusterGauges(
  registry: Registry,
  sources: ClusterSources,
  options: ClusterGaugesOptions = {},
): void {
  const maxAgeMs = options.maxAgeMs ?? CLUSTER_GAUGES_MAX_AGE_MS;
  const now = options.now ?? Date.now;
  const gauge = (
    name: string,
    help: string,
    labelNames: readonly string[],
    read: (set: (labels: Record<string, string>, value: number) => void) => Promise<void>,
  ) => {
    let reading: { at: number; samples: Promise<Sample[] | null> } | null = null;
    const samples = () => {
      const at = now();
      if (!reading || at - reading.at >= maxAgeMs) {
        const out: Sample[] = [];
        reading = {
          at,
          samples: read((labels, value) => out.push([labels, value])).then(
            () => out,
            () => null,
          ),
        };
      }
      return reading.samples;
    };
    return new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        const read = await samples();
        this.reset();
        for (const [labels, value] of read ?? []) this.set(labels, value);
      },
    });
  };

  gauge(
    'framedesk_queue_depth',
    'Jobs per queue and state (shared by all processes)',
    ['queue', 'state'],
    async (set) => {
      for (const [queue, states] of Object.entries(await sources.queues.counts()))
        for (const [state, n] of Object.entries(states)) set({ queue, state }, n);
    },
  );
  gauge(
    'framedesk_queue_oldest_waiting_seconds',
    'Age of the oldest job waiting for a worker, per queue (0 when none waits)',
    ['queue'],
    async (set) => {
      for (const [queue, seconds] of Object.entries(await sources.queues.oldestWaitingSeconds()))
        set({ queue }, seconds ?? 0);
    },
  );
  gauge('framedesk_queue_workers', 'Worker connections consuming each queue (BullMQ)', ['queue'], async (set) => {
    for (const [queue, n] of Object.entries(await sources.queues.workerCounts())) set({ queue }, n);
  });
  gauge('framedesk_submissions', 'Submissions by status (shared by all processes)', ['status'], async (set) => {
    for (const [status, n] of Object.entries(await sources.submissions.countByStatus())) set({ status }, n);
  });
  const overdue = sources.overdue;
  if (overdue)
    gauge(
      'framedesk_review_overdue',
      "Frames waiting for review past the due time their channel's review policy set, per channel",
      ['channel'],
      async (set) => {
        for (const { channel, overdue: n } of await overdue.overduePerChannel(new Date())) set({ channel }, n);
      },
    );
  gauge(
    'framedesk_review_backlog_oldest_seconds',
    `Age of the oldest frame waiting for review (needs_review, since submitted), per channel; the ${BACKLOG_CHANNELS_REPORTED} oldest channels`,
    ['channel'],
    async (set) => {
      const now = Date.now();
      for (const { channel, since } of await sources.review.oldestWaitingPerChannel(BACKLOG_CHANNELS_REPORTED))
        set({ channel }, Math.max(0, (now - since.getTime()) / 1000));
    },
  );
}

/**
 * `framedesk_ready`: 1 while this process is ready (the API's dependencies answer; every queue a
 * worker serves is consumed), else 0. Read when scraped.
 */
export function registerReadinessGauge(registry: Registry, ready: () => Promise<boolean> | boolean): void {
  new Gauge({
    name: 'framedesk_ready',
    help: '1 while this process is ready (as its /readyz says), else 0',
    registers: [registry],
    async collect() {
      this.set((await ready()) ? 1 : 0);
    },
  });
}

/** The repositories the cluster gauges read in PostgreSQL (libs/db's `Repositories` satisfies it). */
export interface ClusterRepositories {
  readonly submissions: ClusterSources['submissions'];
  readonly review: ClusterSources['review'];
  readonly policies: NonNullable<ClusterSources['overdue']>;
}

/**
 * The cluster gauges' PostgreSQL sources, asking `repos` for the repositories at each reading:
 * `Database.readRepos`, a replica's while one keeps up (a gauge is up to 5 s old anyway), else the
 * primary's.
 */
export function clusterDatabaseSources(
  repos: () => ClusterRepositories,
): Required<Pick<ClusterSources, 'submissions' | 'review' | 'overdue'>> {
  return {
    submissions: { countByStatus: () => repos().submissions.countByStatus() },
    review: { oldestWaitingPerChannel: (limit) => repos().review.oldestWaitingPerChannel(limit) },
    overdue: { overduePerChannel: (now) => repos().policies.overduePerChannel(now) },
  };
}
