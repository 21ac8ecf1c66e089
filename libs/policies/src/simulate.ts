import type { Database } from '@framedesk/db';
import { DomainError } from '@framedesk/domain';
import type { CompiledPolicy } from './compile';
import { type AgentRecord, evaluatePolicy, frameFacts, type Signals } from './evaluate';
import { AGENT_WINDOW_DAYS, agentRecord } from './route-frame';

/** One rule's replay: how many frames it matched and what people decided about them. */
export interface RuleSimulation {
  readonly rule: string;
  readonly action: 'promote' | 'reject' | 'review';
  readonly matched: number;
  readonly people_promoted: number;
  readonly people_rejected: number;
  /** For promote and reject: how many of the matches people decided the same way; null for review. */
  readonly agreed: number | null;
}

export interface PolicySimulation {
  readonly since: string;
  readonly frames: number;
  readonly rules: RuleSimulation[];
  /** Frames no rule matched. */
  readonly unmatched: { readonly count: number; readonly people_promoted: number; readonly people_rejected: number };
}

const DAY_MS = 86_400_000;
const NO_RECORD = agentRecord({ promoted: 0, rejected: 0 });

/** The longest history a simulation replays: a year. */
export const MAX_SIMULATION_DAYS = 365;

/**
 * The one `since` rule of a simulation, for the API's Simulate and `framedesk policy simulate
 * --since` alike: `30d`, `12h` (up to a year back) → a time that long before `now`; anything else
 * is a validation_failed at `pointer`.
 */
export function simulationSince(value: unknown, now: Date, pointer = '/since'): Date {
  const match = typeof value === 'string' ? /^([1-9][0-9]{0,4})(d|h)$/.exec(value) : null;
  const ms = match ? Number(match[1]) * (match[2] === 'd' ? DAY_MS : 3_600_000) : NaN;
  if (!match || ms > MAX_SIMULATION_DAYS * DAY_MS) {
    const detail = `since is a span like 30d or 12h, at most ${MAX_SIMULATION_DAYS}d.`;
    throw new DomainError('validation_failed', detail, { errors: [{ pointer, detail }] });
  }
  return new Date(now.getTime() - ms);
}

/**
 * Replays the rules over the channel's frames decided by people since `since`, in batches (keyset
 * on created_at, id): reads only, memory bounded by a batch and the agents seen. Each frame is
 * read with the signals the worker recorded for it (frames processed before signals were recorded
 * have none: rules reading them do not match), its agent's record as of now, and no scores.
 * Sampling is left out: a rule is counted with what it would do.
 */
export async function simulatePolicy(
  db: Database,
  input: {
    channelId: string;
    channelSlug: string;
    policy: CompiledPolicy;
    since: Date;
    now?: Date;
    batchSize?: number;
    /** Stops it between batches (the API: its client went away; the deadline): it rejects with the reason. */
    signal?: AbortSignal;
    /** Longest it runs, in ms: past it, it stops with 503 deadline_exceeded. */
    deadlineMs?: number;
  },
): Promise<PolicySimulation> {
  const deadline = input.deadlineMs !== undefined ? AbortSignal.timeout(input.deadlineMs) : undefined;
  const stop = () => {
    if (deadline?.aborted)
      throw new DomainError(
        'deadline_exceeded',
        `The simulation ran past its deadline (${input.deadlineMs} ms) and was stopped; try a shorter since.`,
      );
    input.signal?.throwIfAborted();
  };
  const now = input.now ?? new Date();
  const rules = new Map<
    string,
    { action: RuleSimulation['action']; matched: number; promoted: number; rejected: number }
  >(input.policy.rules.map((r) => [r.rule.name, { action: r.rule.action, matched: 0, promoted: 0, rejected: 0 }]));
  const unmatched = { count: 0, people_promoted: 0, people_rejected: 0 };
  const agents = new Map<string, AgentRecord>();
  const window = new Date(now.getTime() - AGENT_WINDOW_DAYS * DAY_MS);
  const readsAgent = input.policy.readsAgent;
  // History, read only: a replica's while one keeps up (docs/operations.md), the whole replay on one.
  const history = db.readRepos().policies;
  let frames = 0;
  let after: { createdAt: Date; id: string } | undefined;
  for (;;) {
    stop();
    const batch = await history.decidedByPeople({
      channelId: input.channelId,
      since: input.since,
      limit: input.batchSize ?? 500,
      ...(after ? { after } : {}),
    });
    if (batch.length === 0) break;
    for (const row of batch) {
      frames++;
      let agent = readsAgent ? agents.get(row.agentId) : NO_RECORD;
      if (!agent) {
        stop();
        agent = agentRecord(await history.agentDecisions(row.agentId, window));
        agents.set(row.agentId, agent);
      }
      const outcome = evaluatePolicy(input.policy, {
        id: row.id,
        frame: frameFacts({
          agent: row.agentSlug,
          channel: input.channelSlug,
          metadata: row.metadata,
          mediaType: row.mediaType,
          width: row.width ?? 0,
          height: row.height ?? 0,
          bytes: row.bytes ?? 0,
          durationMs: row.durationMs,
        }),
        signals: (row.signals ?? null) as Signals | null,
        agent,
        scores: null,
      });
      const counted = outcome.rule ? rules.get(outcome.rule) : undefined;
      if (!counted) {
        unmatched.count++;
        if (row.decision === 'promoted') unmatched.people_promoted++;
        else unmatched.people_rejected++;
        continue;
      }
      counted.matched++;
      if (row.decision === 'promoted') counted.promoted++;
      else counted.rejected++;
    }
    const last = batch.at(-1)!;
    after = { createdAt: last.createdAt, id: last.id };
  }
  return {
    since: input.since.toISOString(),
    frames,
    rules: [...rules].map(([rule, r]) => ({
      rule,
      action: r.action,
      matched: r.matched,
      people_promoted: r.promoted,
      people_rejected: r.rejected,
      agreed: r.action === 'promote' ? r.promoted : r.action === 'reject' ? r.rejected : null,
    })),
    unmatched,
  };
}

/** `reject 'blank': 412 matched, people rejected 409 of them` */
export function describeRule(r: RuleSimulation): string {
  const head = `${r.action} '${r.rule}': ${r.matched} matched`;
  if (r.action === 'promote') return `${head}, people promoted ${r.people_promoted} of them`;
  if (r.action === 'reject') return `${head}, people rejected ${r.people_rejected} of them`;
  return `${head} (people promoted ${r.people_promoted}, rejected ${r.people_rejected})`;
}
