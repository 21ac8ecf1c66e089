import type { SubmissionWithSlugs } from '@framedesk/db';
import type { ProcessedImage } from '@framedesk/media';
import {
  decideRoute,
  type FrameFacts,
  frameFacts,
  type FrameToRoute,
  type PolicyOutcome,
  policyRouting,
  type PolicyRouting,
  type PreparedRoute,
  prepareRoute,
  type RouteFrameDeps,
  type RouteHistory,
  type Signals,
} from '@framedesk/policies';

/** A frame's facts for its conditions (libs/policies `frameFacts`), from its row and its media's measures. */
export function submissionFacts(
  submission: Pick<SubmissionWithSlugs, 'agent' | 'channel' | 'metadata' | 'mediaType'>,
  media: { width: number; height: number; bytes: number; durationMs?: number | null },
): FrameFacts {
  return frameFacts({
    agent: submission.agent.slug,
    channel: submission.channel.slug,
    metadata: submission.metadata,
    mediaType: submission.mediaType,
    ...media,
  });
}

/**
 * An image's route, in two halves around its finishing transaction (docs/policies.md): the policy
 * and the scores are read first (`prepareRoute`); `decide` then turns the history read inside the
 * transaction (the nearest decided frames, the agent's record) into the signals to record and,
 * when the channel has a policy, how the frame is routed. Pure: a retried transaction decides again.
 */
export interface ImageRoute {
  /** With a policy: whose human decisions the history read counts, and since when. */
  readonly agentWindow: PreparedRoute['agentWindow'];
  decide(history: RouteHistory): {
    signals: Signals | null;
    routing: PolicyRouting | null;
    outcome: PolicyOutcome | null;
  };
}

export async function prepareImageRoute(
  deps: RouteFrameDeps,
  submission: SubmissionWithSlugs,
  bytes: number,
  image: ProcessedImage,
): Promise<ImageRoute> {
  const preview = image.variants.find((v) => v.name === 'preview') ?? image.variants.at(-1);
  const frame: FrameToRoute = {
    id: submission.id,
    channelId: submission.channelId,
    agentId: submission.agentId,
    frame: submissionFacts(submission, { width: image.width, height: image.height, bytes }),
    pixels: image.signals,
    ...(preview ? { preview: { data: preview.data, contentType: preview.contentType } } : {}),
  };
  const prepared = await prepareRoute(deps, frame);
  return {
    agentWindow: prepared.agentWindow,
    decide(history) {
      const { signals, outcome } = decideRoute(prepared, frame, history);
      return { signals, outcome, routing: policyRouting(outcome, deps.now?.() ?? new Date()) };
    },
  };
}
