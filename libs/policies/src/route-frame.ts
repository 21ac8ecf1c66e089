import type { AgentDecisionCounts, NearestDecided } from '@framedesk/db';
import type { CompiledPolicy } from './compile';
import {
  evaluatePolicy,
  type AgentRecord,
  type FrameFacts,
  type PolicyOutcome,
  type RuleFailure,
  type Signals,
} from './evaluate';
import type { PolicyCache } from './policy-store';
import type { VideoSignals } from './signal-values';
import type { ScoringClient } from './scoring';

const DAY_MS = 86_400_000;
/** The agent's record is counted over this many days. */
export const AGENT_WINDOW_DAYS = 30;

/** What the pipeline counts about policies (the worker's metrics). */
export interface PolicyObserver {
  scored(outcome: 'ok' | 'timeout' | 'error' | 'malformed'): void;
  routed(action: 'promote' | 'reject' | 'review' | 'none', sampled: boolean): void;
  /**
   * A rule's evaluation failed: `error` (it did not match; e.g. an absent signal or score) or
   * `budget` (past the cost budget: the frame went to people). Counted per rule and logged.
   */
  ruleFailed?(channel: string, failure: RuleFailure): void;
}

/** Counts (and, through the observer, logs) what evaluating a frame's policy did. */
export function reportOutcome(observer: PolicyObserver | undefined, channel: string, outcome: PolicyOutcome): void {
  if (!observer) return;
  observer.routed(outcome.action ?? 'none', outcome.sampled === true);
  for (const failure of outcome.failures ?? []) observer.ruleFailed?.(channel, failure);
}

export interface RouteFrameDeps {
  readonly cache: PolicyCache;
  readonly scoring?: ScoringClient;
  readonly observer?: PolicyObserver;
  readonly now?: () => Date;
}

export interface FrameToRoute {
  readonly id: string;
  readonly channelId: string;
  readonly agentId: string;
  readonly frame: FrameFacts;
  /** From the decoded pixels (libs/media); null for a video. */
  readonly pixels: Omit<Signals, 'nearest_promoted' | 'nearest_rejected'> | null;
  /** A video's measurement (video-signals), when the worker made one; its `signals` otherwise. */
  readonly measured?: VideoSignals | null;
  /** The preview variant, posted to the scoring service. */
  readonly preview?: { readonly data: Buffer; readonly contentType: string };
}

/** The agent's human decisions over the window, as shares. */
export function agentRecord(counts: { promoted: number; rejected: number }): AgentRecord {
  const decisions = counts.promoted + counts.rejected;
  return {
    decisions,
    promoted: counts.promoted,
    rejected: counts.rejected,
    promoted_share: decisions === 0 ? 0 : counts.promoted / decisions,
    rejected_share: decisions === 0 ? 0 : counts.rejected / decisions,
  };
}

/**
 * What the worker reads for a frame before its finishing transaction: the channel's compiled
 * policy (the cache) and, when a rule reads them, the scores (the scoring hook, a request that
 * must not hold a transaction open). `agentWindow`: with a policy whose rules read `agent`
 * (`CompiledPolicy.readsAgent`; else null), whose human decisions its
 * `agent` reads and since when; read with the history in the finishing transaction.
 */
export interface PreparedRoute {
  readonly policy: CompiledPolicy | null;
  readonly scores: Readonly<Record<string, number>> | null;
  readonly agentWindow: { readonly id: string; readonly since: Date } | null;
}

/** What the finishing transaction read of the history (db `saveFingerprintWithHistory`). */
export interface RouteHistory {
  readonly nearest: NearestDecided;
  readonly agent: AgentDecisionCounts | null;
}

/** The worker's side of a policy, first half: the policy and the scores (see PreparedRoute). */
export async function prepareRoute(deps: RouteFrameDeps, input: FrameToRoute): Promise<PreparedRoute> {
  const policy = await deps.cache.forChannel(input.channelId);
  if (!policy) return { policy: null, scores: null, agentWindow: null };
  const now = deps.now?.() ?? new Date();
  // The agent's record only for a policy that reads it: its cost must not follow every image.
  const agentWindow = policy.readsAgent
    ? { id: input.agentId, since: new Date(now.getTime() - AGENT_WINDOW_DAYS * DAY_MS) }
    : null;
  let scores: Readonly<Record<string, number>> | null = null;
  if (policy.readsScores && deps.scoring && input.preview) {
    const scored = await deps.scoring({
      id: input.id,
      agent: input.frame.agent,
      channel: input.frame.channel,
      image: input.preview.data,
      contentType: input.preview.contentType,
    });
    deps.observer?.scored(scored.ok ? 'ok' : scored.reason);
    if (scored.ok) scores = scored.scores;
  }
  return { policy, scores, agentWindow };
}

/**
 * Second half, pure: the frame's signals (the pixels' and the nearest decided frames'), recorded
 * for every frame so `policy simulate` can replay them, and, when the channel has a policy, what
 * its rules decide.
 */
export function decideRoute(
  prepared: PreparedRoute,
  input: FrameToRoute,
  history: RouteHistory,
): { signals: Signals | null; outcome: PolicyOutcome | null } {
  const { nearest } = history;
  const signals: Signals | null = input.pixels
    ? {
        ...input.pixels,
        ...(nearest.promoted !== undefined ? { nearest_promoted: nearest.promoted } : {}),
        ...(nearest.rejected !== undefined ? { nearest_rejected: nearest.rejected } : {}),
      }
    : (input.measured ?? null);
  if (!prepared.policy) return { signals, outcome: null };
  const agent = agentRecord(history.agent ?? { promoted: 0, rejected: 0 });
  const { scores } = prepared;
  return {
    signals,
    outcome: evaluatePolicy(prepared.policy, { id: input.id, frame: input.frame, signals, agent, scores }),
  };
}
