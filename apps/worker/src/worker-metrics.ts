import type { Database } from '@framedesk/db';
import {
  clusterDatabaseSources,
  Counter,
  createPipelineMetrics,
  Histogram,
  type Registry,
  registerClusterGauges,
} from '@framedesk/observability';
import type { QueueProducer } from '@framedesk/queues';

export type JobOutcome = 'completed' | 'retried' | 'failed';

/** The worker's Prometheus metrics; the shared state (queues, submissions, review backlog) is read when scraped. */
export function createWorkerMetrics(registry: Registry, sources: { queues: QueueProducer; db: Database }) {
  const jobs = new Counter({
    name: 'framedesk_jobs_total',
    help: 'Jobs finished by this process, by queue, job and outcome (completed, retried, failed)',
    labelNames: ['queue', 'job', 'outcome'],
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'framedesk_job_duration_seconds',
    help: 'Time a job ran in this process, by queue, job and outcome',
    labelNames: ['queue', 'job', 'outcome'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [registry],
  });
  const stalled = new Counter({
    name: 'framedesk_jobs_stalled_total',
    help: 'Jobs whose lock lapsed and that were handed back to the queue',
    labelNames: ['queue'],
    registers: [registry],
  });
  // Read where stale-tolerant reads go (the worker reads no replica: its readRepos are the primary's).
  registerClusterGauges(registry, { queues: sources.queues, ...clusterDatabaseSources(() => sources.db.readRepos()) });
  const pipeline = createPipelineMetrics(registry);
  return {
    jobFinished(queue: string, job: string, outcome: JobOutcome, seconds: number) {
      jobs.inc({ queue, job, outcome });
      durations.observe({ queue, job, outcome }, seconds);
    },
    jobStalled(queue: string) {
      stalled.inc({ queue });
    },
    pipeline,
    /** Review policies (docs/policies.md): scoring calls and what the rules did. */
    policies: pipeline.policies,
  };
}

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;
