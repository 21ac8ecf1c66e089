import type { SubmissionWithSlugs } from '@framedesk/db';
import type { ProcessedImage } from '@framedesk/media';
import {
  decideRoute,
  type FrameFacts,
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

/** The agent's metadata part (as accepted) as a condition reads it: absent strings are empty. */
export function frameFacts(
  submission: Pick<SubmissionWithSlugs, 'agent' | 'channel' | 'metadata' | 'mediaType'>,
  media: { width: number; height: number; bytes: number; durationMs?: number | null },
): FrameFacts {
  const metadata = (submission.metadata ?? {}) as Record<string, unknown>;
  const text = (key: string) => (typeof metadata[key] === 'string' ? (metadata[key] as string) : '');
  return {
    agent: submission.agent.slug,
    channel: submission.channel.slug,
    metadata: {
      title: text('title'),
      caption: text('caption'),
      external_ref: text('external_ref'),
      click_zones: Array.isArray(metadata['click_zones']) ? metadata['click_zones'].length : 0,
    },
    media: {
      type: submission.mediaType,
      width: media.width,
      height: media.height,
      bytes: media.bytes,
      ...(media.durationMs != null ? { duration: media.durationMs / 1000 } : {}),
    },
  };
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
    frame: frameFacts(submission, { width: image.width, height: image.height, bytes }),
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
