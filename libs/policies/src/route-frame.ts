import type { Database, SimilaritySettings } from '@framedesk/db';
import { evaluatePolicy, type AgentRecord, type FrameFacts, type PolicyOutcome, type Signals } from './evaluate';
import type { PolicyCache } from './policy-store';
import type { ScoringClient } from './scoring';

const DAY_MS = 86_400_000;
/** The agent's record is counted over this many days. */
export const AGENT_WINDOW_DAYS = 30;

/** What the pipeline counts about policies (the worker's metrics). */
export interface PolicyObserver {
  scored(outcome: 'ok' | 'timeout' | 'error' | 'malformed'): void;
  routed(action: 'promote' | 'reject' | 'review' | 'none', sampled: boolean): void;
}

export interface RouteFrameDeps {
  readonly db: Database;
  readonly cache: PolicyCache;
  readonly similarity: SimilaritySettings;
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
  readonly hash: bigint | null;
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
 * The worker's side of a policy: the signals (the pixels' and the nearest decided frames'),
 * recorded for every frame so `policy simulate` can replay them; and, when the channel has a
 * policy, the agent's record, the scores when a rule reads them, and what the rules decide.
 */
export async function routeFrame(
  deps: RouteFrameDeps,
  input: FrameToRoute,
): Promise<{ signals: Signals | null; outcome: PolicyOutcome | null }> {
  let signals: Signals | null = null;
  if (input.pixels) {
    const nearest =
      input.hash === null ? {} : await deps.db.repos.policies.nearestDecided(input.id, input.hash, deps.similarity);
    signals = {
      ...input.pixels,
      ...(nearest.promoted !== undefined ? { nearest_promoted: nearest.promoted } : {}),
      ...(nearest.rejected !== undefined ? { nearest_rejected: nearest.rejected } : {}),
    };
  }
  const policy = await deps.cache.forChannel(input.channelId);
  if (!policy) return { signals, outcome: null };
  const now = deps.now?.() ?? new Date();
  const since = new Date(now.getTime() - AGENT_WINDOW_DAYS * DAY_MS);
  const agent = agentRecord(await deps.db.repos.policies.agentDecisions(input.agentId, since));
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
  const outcome = evaluatePolicy(policy, { id: input.id, frame: input.frame, signals, agent, scores });
  deps.observer?.routed(outcome.action ?? 'none', outcome.sampled === true);
  return { signals, outcome };
}
