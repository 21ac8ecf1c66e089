import type { Database } from '@framedesk/db';
import {
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
  registerClusterGauges(registry, {
    queues: sources.queues,
    submissions: sources.db.repos.submissions,
    review: sources.db.repos.review,
    overdue: sources.db.repos.policies,
  });
  const pipeline = createPipelineMetrics(registry);
  const scoring = new Counter({
    name: 'framedesk_scoring_requests_total',
    help: 'Calls to the scoring service (SCORING_URL), by outcome: ok, timeout, error, malformed (the frame then goes to people)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const routed = new Counter({
    name: 'framedesk_policy_routed_total',
    help: "Frames a channel's review policy routed, by action (promote, reject, review, none) and whether sampled",
    labelNames: ['action', 'sampled'],
    registers: [registry],
  });
  const ruleFailures = new Counter({
    name: 'framedesk_policy_rule_failures_total',
    help: 'Evaluations of a policy rule that failed, by channel, rule and kind: error (the rule did not match, e.g. an absent signal or score) or budget (past the cost budget: the frame went to people)',
    labelNames: ['channel', 'rule', 'kind'],
    registers: [registry],
  });
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
    policies: {
      scored: (outcome: string) => scoring.inc({ outcome }),
      routed: (action: string, sampled: boolean) => routed.inc({ action, sampled: String(sampled) }),
      ruleFailed: (channel: string, failure: { rule: string; kind: string }) =>
        ruleFailures.inc({ channel, rule: failure.rule, kind: failure.kind }),
    },
  };
}

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;
