import { createHash } from 'node:crypto';
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

function matches(rule: CompiledRule, context: Record<string, unknown>): boolean {
  try {
    return rule.condition(context) === true;
  } catch {
    // An absent value (a score not sent, no near frame): the condition cannot hold.
    return false;
  }
}

/**
 * Runs the rules in order over the inputs; the first that matches decides. Pure: no I/O, no clock,
 * no randomness (a sample is drawn from the frame's id), so the worker, `policy simulate` and the
 * workbench's preview get the same answer for the same inputs.
 *
 * Without scores (none configured or the service failed), a rule that reads them cannot match;
 * and a later `promote` / `reject` is held back for people, since a rule before it might have
 * matched with the scores.
 */
export function evaluatePolicy(policy: CompiledPolicy, input: PolicyInput): PolicyOutcome {
  const context = celContext(input);
  const read = {
    signals: input.signals,
    agent: input.agent,
    ...(input.scores ? { scores: input.scores } : {}),
  };
  let unknownBefore = false;
  for (const compiled of policy.rules) {
    if (compiled.readsScores && input.scores === null) {
      unknownBefore = true;
      continue;
    }
    if (!matches(compiled, context)) continue;
    const { rule } = compiled;
    if (rule.action === 'review') {
      return {
        rule: rule.name,
        action: 'review',
        ...(rule.approvals !== undefined ? { approvals: rule.approvals } : {}),
        ...(rule.priority !== undefined ? { priority: PRIORITY_VALUES[rule.priority] } : {}),
        ...(rule.due !== undefined ? { dueInMs: durationMs(rule.due) } : {}),
        ...read,
      };
    }
    const decided = { rule: rule.name, ...(rule.reason !== undefined ? { reason: rule.reason } : {}) };
    if (unknownBefore)
      return { ...decided, action: 'review', suggestion: rule.action, held: 'scores unavailable', ...read };
    if (rule.sample !== undefined && rule.sample > 0 && sampleDraw(input.id, rule.name) < rule.sample)
      return { ...decided, action: 'review', sampled: true, suggestion: rule.action, ...read };
    return { ...decided, action: rule.action, ...read };
  }
  // No rule matched, but one that reads scores might have: people decide.
  if (unknownBefore) return { rule: null, action: 'review', held: 'scores unavailable', ...read };
  return { rule: null, action: null, ...read };
}
