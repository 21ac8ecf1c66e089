import { DEFAULT_SIMILARITY, type SubmissionWithSlugs } from '@framedesk/db';
import type { ProcessedImage } from '@framedesk/media';
import {
  type FrameFacts,
  policyRouting,
  type PolicyRouting,
  type RouteFrameDeps,
  routeFrame,
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

/** An image's signals and, when its channel has a policy, how it is routed (docs/policies.md). */
export async function routeImage(
  deps: Omit<RouteFrameDeps, 'similarity'> & { similarity: RouteFrameDeps['similarity'] | undefined },
  submission: SubmissionWithSlugs,
  bytes: number,
  image: ProcessedImage,
): Promise<{ signals: Signals | null; routing: PolicyRouting | null }> {
  const preview = image.variants.find((v) => v.name === 'preview') ?? image.variants.at(-1);
  const { signals, outcome } = await routeFrame(
    { ...deps, similarity: deps.similarity ?? DEFAULT_SIMILARITY },
    {
      id: submission.id,
      channelId: submission.channelId,
      agentId: submission.agentId,
      frame: frameFacts(submission, { width: image.width, height: image.height, bytes }),
      pixels: image.signals,
      hash: image.perceptualHash,
      ...(preview ? { preview: { data: preview.data, contentType: preview.contentType } } : {}),
    },
  );
  return { signals, routing: policyRouting(outcome, deps.now?.() ?? new Date()) };
}
