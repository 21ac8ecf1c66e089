import type { Database } from '@framedesk/db';
import { Counter, Gauge, Histogram, type Registry } from '@framedesk/observability';
import type { QueueProducer } from '@framedesk/queues';

export type JobOutcome = 'completed' | 'retried' | 'failed';

/** The worker's Prometheus metrics; queue depth and submissions are read when scraped. */
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
  new Gauge({
    name: 'framedesk_queue_depth',
    help: 'Jobs per queue and state (shared by all workers)',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      this.reset();
      const counts = await sources.queues.counts();
      for (const [queue, states] of Object.entries(counts))
        for (const [state, n] of Object.entries(states)) this.set({ queue, state }, n);
    },
  });
  new Gauge({
    name: 'framedesk_submissions',
    help: 'Submissions by status (shared by all processes)',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const [status, n] of Object.entries(await sources.db.repos.submissions.countByStatus()))
        this.set({ status }, n);
    },
  });
  return {
    jobFinished(queue: string, job: string, outcome: JobOutcome, seconds: number) {
      jobs.inc({ queue, job, outcome });
      durations.observe({ queue, job, outcome }, seconds);
    },
    jobStalled(queue: string) {
      stalled.inc({ queue });
    },
  };
}

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;
