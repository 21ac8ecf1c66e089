import { createHash } from 'node:crypto';
import { BudgetExceeded, withDeadline } from './cel-regex';
import type { CompiledPolicy, CompiledRule } from './compile';
import { durationMs, PRIORITY_VALUES, type PolicyAction } from './policy-file';
import { celSignals, type VideoSignals } from './signal-values';

/** `frame` as a condition reads it (docs/policies.md). */
export interface FrameFacts {
  readonly agent: string;
  readonly channel: string;
  readonly metadata: {
    readonly title: string;
    readonly caption: string;
    readonly external_ref: string;
    readonly click_zones: number;
  };
  readonly media: {
    readonly type: 'image' | 'video';
    readonly width: number;
    readonly height: number;
    readonly bytes: number;
    /** Seconds; videos only. */
    readonly duration?: number;
  };
}

/** What `frameFacts` reads: a frame's slugs, its metadata part (as accepted) and its media's measures. */
export interface FrameRecord {
  readonly agent: string;
  readonly channel: string;
  readonly metadata: unknown;
  readonly mediaType: 'image' | 'video';
  readonly width: number;
  readonly height: number;
  readonly bytes: number;
  readonly durationMs?: number | null;
}

/**
 * `frame` as a condition reads it, built the same way by the worker and by `policy simulate`:
 * absent strings are empty, click zones are counted, a duration is in seconds (videos only).
 */
export function frameFacts(record: FrameRecord): FrameFacts {
  const metadata = (record.metadata ?? {}) as Record<string, unknown>;
  const text = (key: string) => (typeof metadata[key] === 'string' ? (metadata[key] as string) : '');
  return {
    agent: record.agent,
    channel: record.channel,
    metadata: {
      title: text('title'),
      caption: text('caption'),
      external_ref: text('external_ref'),
      click_zones: Array.isArray(metadata['click_zones']) ? metadata['click_zones'].length : 0,
    },
    media: {
      type: record.mediaType,
      width: record.width,
      height: record.height,
      bytes: record.bytes,
      ...(record.durationMs != null ? { duration: record.durationMs / 1000 } : {}),
    },
  };
}

/**
 * `signals`: what the worker read from the pixels and the channel's history (an image), or measured
 * over the whole video (a video, video-signals.ts). Absent keys make a condition reading them fail.
 */
export interface Signals extends VideoSignals {
  readonly blank?: boolean;
  readonly luminance?: number;
  readonly luminance_spread?: number;
  readonly sharpness?: number;
  /** Absent when no promoted / rejected frame of the channel is near (docs/policies.md). */
  readonly nearest_promoted?: number;
  readonly nearest_rejected?: number;
}

/** `agent`: its record of human decisions over the window (30 days). */
export interface AgentRecord {
  readonly decisions: number;
  readonly promoted: number;
  readonly rejected: number;
  readonly promoted_share: number;
  readonly rejected_share: number;
}

export interface PolicyInput {
  /** The frame's id: sampling is decided from it, so the same frame always samples the same way. */
  readonly id: string;
  readonly frame: FrameFacts;
  /** Absent for a frame processed before signals were recorded: conditions reading them fail. */
  readonly signals: Signals | null;
  readonly agent: AgentRecord;
  /** null: no scoring service, or it did not answer (timeout, error, malformed answer). */
  readonly scores: Readonly<Record<string, number>> | null;
}

/** What the policy decided, or suggested for a sample, and the values it read. */
export interface PolicyOutcome {
  /** The rule that matched; null when none did. */
  readonly rule: string | null;
  /** What the frame gets: an automatic decision, or people (`review`); null: no rule matched. */
  readonly action: PolicyAction | null;
  readonly reason?: string;
  /** A `promote` / `reject` match sent to people as a sample. */
  readonly sampled?: boolean;
  /** What the rule would have done (a sample, or a decision held back). */
  readonly suggestion?: 'promote' | 'reject';
  /** Why an automatic decision was held back for people, e.g. the scoring service did not answer. */
  readonly held?: string;
  readonly approvals?: number;
  /** 1 high, 0 normal, -1 low. */
  readonly priority?: number;
  /** Milliseconds from now until it is due. */
  readonly dueInMs?: number;
  /** The values it read. */
  readonly signals: Signals | null;
  readonly scores?: Readonly<Record<string, number>>;
  readonly agent: AgentRecord;
  /** The stored version of the policy that routed the frame (absent for a file not stored). */
  readonly version?: number;
  /** Rules whose evaluation failed (an error, or past the budget): counted and logged by the caller. */
  readonly failures?: readonly RuleFailure[];
}

/** A rule whose evaluation failed: `error` (it then does not match), or `budget` (people decide). */
export interface RuleFailure {
  readonly rule: string;
  readonly kind: 'error' | 'budget';
  readonly message: string;
}

/** The cost budget of one evaluation (docs/policies.md, "Cost budget"). */
export const EVALUATION_BUDGET = {
  /** A string a condition reads (title, caption, external_ref, slugs) is at most this long. */
  maxStringLength: 2_000,
  /** All the rules of one frame run within this many milliseconds. */
  timeMs: 250,
} as const;

export interface EvaluationLimits {
  readonly timeMs?: number;
  /** Milliseconds, monotonic (performance.now by default). */
  readonly clock?: () => number;
}

const int = (n: number) => BigInt(Math.round(n));

/** CEL's values: ints as BigInt, absent fields left out (reading them fails: the rule does not match). */
function celContext(input: PolicyInput): Record<string, unknown> {
  const { frame, signals, agent } = input;
  const { duration, ...media } = frame.media;
  return {
    frame: {
      agent: frame.agent,
      channel: frame.channel,
      metadata: { ...frame.metadata, click_zones: int(frame.metadata.click_zones) },
      media: {
        type: media.type,
        width: int(media.width),
        height: int(media.height),
        bytes: int(media.bytes),
        ...(duration !== undefined ? { duration } : {}),
      },
    },
    signals: signals ? celSignals(signals) : {},
    agent: { ...agent, decisions: int(agent.decisions), promoted: int(agent.promoted), rejected: int(agent.rejected) },
    scores: { ...(input.scores ?? {}) },
  };
}

/** A fraction in [0, 1) fixed by the frame and the rule: the same frame always samples the same way. */
export function sampleDraw(frameId: string, ruleName: string): number {
  const digest = createHash('sha256').update(`${frameId}\u0000${ruleName}`).digest();
  return digest.readUInt32BE(0) / 0x1_0000_0000;
}

type RuleResult =
  { kind: 'value'; value: boolean } | { kind: 'error'; message: string } | { kind: 'budget'; message: string };

function run(rule: CompiledRule, context: Record<string, unknown>, deadline: number, clock: () => number): RuleResult {
  try {
    const value = withDeadline(deadline, clock, () => rule.condition(context)) === true;
    if (clock() > deadline) return { kind: 'budget', message: 'the evaluation ran past its time budget' };
    return { kind: 'value', value };
  } catch (error) {
    if (error instanceof BudgetExceeded) return { kind: 'budget', message: error.message };
    return { kind: 'error', message: error instanceof Error ? error.message : String(error) };
  }
}

/** A string the frame gives that is longer than the budget allows, or null. */
function oversizedString(frame: FrameFacts): string | null {
  const strings: Record<string, string> = {
    'frame.agent': frame.agent,
    'frame.channel': frame.channel,
    'frame.metadata.title': frame.metadata.title,
    'frame.metadata.caption': frame.metadata.caption,
    'frame.metadata.external_ref': frame.metadata.external_ref,
  };
  const over = Object.entries(strings).find(([, value]) => value.length > EVALUATION_BUDGET.maxStringLength);
  return over ? `${over[0]} is longer than ${EVALUATION_BUDGET.maxStringLength} characters` : null;
}

/**
 * Runs the rules in order over the inputs; the first that matches decides. Pure: no I/O, no
 * randomness (a sample is drawn from the frame's id), so the worker, `policy simulate` and the
 * workbench's preview get the same answer for the same inputs; the clock only bounds its cost.
 *
 * Fails closed (docs/policies.md): a rule that reads `scores` when there are none (no service, or
 * it failed) or that reads a score the service did not send cannot decide, and a later `promote` /
 * `reject` is held back for people, since that rule might have matched. A rule past the cost
 * budget sends the frame to people at once, naming it; a stored policy that no longer compiles
 * holds every frame. A rule whose evaluation fails otherwise (an absent signal) does not match;
 * each failure is listed in `failures` for the caller to count and log.
 */
export function evaluatePolicy(
  policy: CompiledPolicy,
  input: PolicyInput,
  limits: EvaluationLimits = {},
): PolicyOutcome {
  const read = {
    signals: input.signals,
    agent: input.agent,
    ...(input.scores ? { scores: input.scores } : {}),
    ...(policy.version !== undefined ? { version: policy.version } : {}),
  };
  if (policy.broken) return { rule: null, action: 'review', held: 'policy does not compile', ...read };
  const oversized = oversizedString(input.frame);
  if (oversized) return { rule: null, action: 'review', held: `over budget: ${oversized}`, ...read };
  const context = celContext(input);
  const clock = limits.clock ?? (() => performance.now());
  const deadline = clock() + (limits.timeMs ?? EVALUATION_BUDGET.timeMs);
  const failures: RuleFailure[] = [];
  const withFailures = () => (failures.length > 0 ? { failures: [...failures] } : {});
  let held: string | null = null;
  for (const compiled of policy.rules) {
    const { rule } = compiled;
    if (compiled.readsScores && input.scores === null) {
      held ??= 'scores unavailable';
      continue;
    }
    const result = run(compiled, context, deadline, clock);
    if (result.kind === 'budget') {
      failures.push({ rule: rule.name, kind: 'budget', message: result.message });
      return { rule: rule.name, action: 'review', held: 'over budget', ...read, ...withFailures() };
    }
    if (result.kind === 'error') {
      failures.push({ rule: rule.name, kind: 'error', message: result.message });
      // A score it reads was not sent: it might have matched with it, so it fails closed.
      if (compiled.readsScores) held ??= 'score missing';
      continue;
    }
    if (!result.value) continue;
    if (rule.action === 'review') {
      return {
        rule: rule.name,
        action: 'review',
        ...(rule.approvals !== undefined ? { approvals: rule.approvals } : {}),
        ...(rule.priority !== undefined ? { priority: PRIORITY_VALUES[rule.priority] } : {}),
        ...(rule.due !== undefined ? { dueInMs: durationMs(rule.due) } : {}),
        ...read,
        ...withFailures(),
      };
    }
    const decided = { rule: rule.name, ...(rule.reason !== undefined ? { reason: rule.reason } : {}), ...read };
    if (held) return { ...decided, action: 'review', suggestion: rule.action, held, ...withFailures() };
    if (rule.sample !== undefined && rule.sample > 0 && sampleDraw(input.id, rule.name) < rule.sample)
      return { ...decided, action: 'review', sampled: true, suggestion: rule.action, ...withFailures() };
    return { ...decided, action: rule.action, ...withFailures() };
  }
  // No rule matched, but one that could not be read might have: people decide.
  if (held) return { rule: null, action: 'review', held, ...read, ...withFailures() };
  return { rule: null, action: null, ...read, ...withFailures() };
}
