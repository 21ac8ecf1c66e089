import type { Database, SubmissionWithSlugs } from '@framedesk/db';
import {
  decideRoute,
  type FrameToRoute,
  type PolicyCache,
  type PolicyObserver,
  policyRouting,
  type PolicyRouting,
  prepareRoute,
  reportOutcome,
  type ScoringClient,
  type VideoSignals,
  scoringOncePerFrame,
} from '@framedesk/policies';
import { submissionFacts } from './policy-routing';
import type { PosterPreview } from './video-poster';

/** Review policies (docs/policies.md): the worker's cache, the scoring hook, its metrics. */
export interface VideoPolicies {
  readonly cache: PolicyCache;
  readonly scoring?: ScoringClient;
  readonly observer?: PolicyObserver;
}

export interface VideoPolicyDeps {
  readonly db: Database;
  readonly policies: VideoPolicies;
  readonly now: () => Date;
}

/** What a ready video's conditions read; width, height 0 when a provider did not report them. */
export interface VideoFacts {
  readonly width: number | null;
  readonly height: number | null;
  readonly durationMs: number | null;
  /** The original's size. */
  readonly bytes: number;
  /** The stored preview of the poster, posted to the scoring hook; none without a poster. */
  readonly preview: PosterPreview | null;
  /** What the worker measured (black, frozen, silent stretches); absent when it did not. */
  readonly signals?: VideoSignals | null;
}

/**
 * How the channel's review policy routes a ready video (null: no policy). The same evaluator as
 * an image's, with the video's facts and, instead of pixel signals, the measured stretches
 * (`signals.black_share`, …; docs/video.md) when the worker measured the video: without them a
 * rule reading `signals.*` fails and so does not match.
 */
export function videoPolicyRouter(deps: VideoPolicyDeps) {
  const { scoring, observer } = deps.policies;
  // A provider's webhook is retried: the scoring hook is asked once per video, its answer recorded.
  const routeDeps = {
    cache: deps.policies.cache,
    ...(scoring
      ? {
          scoring: scoringOncePerFrame(scoring, deps.db.repos.policies, (result) =>
            observer?.scored(result.ok ? 'ok' : result.reason),
          ),
        }
      : {}),
    now: deps.now,
  };
  return async function routeVideo(submission: SubmissionWithSlugs, media: VideoFacts): Promise<PolicyRouting | null> {
    const frame: FrameToRoute = {
      id: submission.id,
      channelId: submission.channelId,
      agentId: submission.agentId,
      frame: submissionFacts(submission, {
        width: media.width ?? 0,
        height: media.height ?? 0,
        bytes: media.bytes,
        durationMs: media.durationMs,
      }),
      pixels: null,
      measured: media.signals ?? null,
      ...(media.preview ? { preview: media.preview } : {}),
    };
    const prepared = await prepareRoute(routeDeps, frame);
    if (!prepared.policy) return null;
    // No fingerprint, so no nearest decided frames; the agent's record is the one read of history.
    const window = prepared.agentWindow;
    const agent = window ? await deps.db.repos.policies.agentDecisions(window.id, window.since) : null;
    const { outcome } = decideRoute(prepared, frame, { nearest: {}, agent });
    if (outcome) reportOutcome(deps.policies.observer, submission.channel.slug, outcome);
    return policyRouting(outcome, deps.now());
  };
}

export type RouteVideo = ReturnType<typeof videoPolicyRouter>;
