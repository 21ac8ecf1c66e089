import { Counter, Histogram, type Registry } from 'prom-client';

/**
 * What frames go through, counted by the process that moved them (API or worker): status
 * transitions, failures by code, processing time and review decisions. Every label is a closed
 * set (statuses, media types, failure codes, outcomes): never an id.
 */
export function createPipelineMetrics(registry: Registry) {
  const transitions = new Counter({
    name: 'framedesk_status_transitions_total',
    help: 'Submission status transitions, by from and to status and media type',
    labelNames: ['from', 'to', 'media_type'] as const,
    registers: [registry],
  });
  const failures = new Counter({
    name: 'framedesk_submission_failures_total',
    help: 'Submissions that ended failed, by media type and failure code',
    labelNames: ['media_type', 'code'] as const,
    registers: [registry],
  });
  const processing = new Histogram({
    name: 'framedesk_processing_duration_seconds',
    help: 'Time a worker spent on one processing job of a frame, by media type and outcome',
    labelNames: ['media_type', 'outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [registry],
  });
  const decisions = new Counter({
    name: 'framedesk_review_decisions_total',
    help: 'Review decisions, by outcome (promoted, rejected)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const samples = new Counter({
    name: 'framedesk_policy_samples_total',
    help: "Sampled frames a person decided, by the review policy's rule and whether they agreed with it (agreement rate per rule)",
    labelNames: ['rule', 'agrees'] as const,
    registers: [registry],
  });
  const scoring = new Counter({
    name: 'framedesk_scoring_requests_total',
    help: 'Calls to the scoring service (SCORING_URL), by outcome: ok, timeout, error, malformed (the frame then goes to people)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const routed = new Counter({
    name: 'framedesk_policy_routed_total',
    help: "Frames a channel's review policy routed, by action (promote, reject, review, none) and whether sampled",
    labelNames: ['action', 'sampled'] as const,
    registers: [registry],
  });
  const ruleFailures = new Counter({
    name: 'framedesk_policy_rule_failures_total',
    help: 'Evaluations of a policy rule that failed, by channel, rule and kind: error (the rule did not match, e.g. an absent signal or score) or budget (past the cost budget: the frame went to people)',
    labelNames: ['channel', 'rule', 'kind'] as const,
    registers: [registry],
  });
  return {
    /**
     * Review policies (docs/policies.md): scoring calls and what the rules did, counted by the
     * process that routed the frame (the worker, or the API finishing a provider's video).
     */
    policies: {
      scored: (outcome: string) => scoring.inc({ outcome }),
      routed: (action: string, sampled: boolean) => routed.inc({ action, sampled: String(sampled) }),
      ruleFailed: (channel: string, failure: { rule: string; kind: string }) =>
        ruleFailures.inc({ channel, rule: failure.rule, kind: failure.kind }),
    },
    judged(rule: string, agrees: boolean) {
      samples.inc({ rule, agrees: String(agrees) });
    },
    transitioned(from: string, to: string, mediaType: string, failureCode?: string | null) {
      transitions.inc({ from, to, media_type: mediaType });
      if (to === 'failed') failures.inc({ media_type: mediaType, code: failureCode ?? 'unknown' });
    },
    processed(mediaType: string, outcome: string, seconds: number) {
      processing.observe({ media_type: mediaType, outcome }, seconds);
    },
    decided(outcome: 'promoted' | 'rejected') {
      decisions.inc({ outcome });
    },
  };
}

export type PipelineMetrics = ReturnType<typeof createPipelineMetrics>;

/** The parts of a status transition (libs/db's TransitionRequest and TransitionResult) that are counted. */
interface CountedTransition {
  readonly request: { readonly to: string; readonly patch?: { readonly failureCode?: string | null } };
  readonly result: {
    readonly ok: boolean;
    readonly from?: string;
    readonly submission?: { readonly mediaType: string; readonly failureCode?: string | null };
  };
}

/**
 * Counts every successful status transition of `db` where the service asked for it, after it
 * committed: the one place every transition passes (except the upload's completion, which
 * changes the status inside its own transaction and is counted by its service).
 */
export function withTransitionMetrics<
  D extends {
    transition(request: CountedTransition['request'], ...rest: never[]): Promise<CountedTransition['result']>;
  },
>(db: D, metrics: Pick<PipelineMetrics, 'transitioned'>): D {
  return {
    ...db,
    async transition(...args: Parameters<D['transition']>) {
      const [request] = args;
      const result = await (db.transition as (...a: typeof args) => ReturnType<D['transition']>)(...args);
      if (result.ok && result.from && result.submission)
        metrics.transitioned(
          result.from,
          request.to,
          result.submission.mediaType,
          request.patch?.failureCode ?? result.submission.failureCode,
        );
      return result;
    },
  } as D;
}
