import { DEFAULT_SIMILARITY, type Database, type SimilaritySettings, type SubmissionWithSlugs } from '@framedesk/db';
import {
  type PolicyCache,
  type PolicyObserver,
  policyRouting,
  type PolicyRouting,
  routeFrame,
  type ScoringClient,
} from '@framedesk/policies';
import { frameFacts } from './policy-routing';
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
  readonly nearDuplicates?: SimilaritySettings;
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
}

/**
 * How the channel's review policy routes a ready video (null: no policy). The same evaluator as
 * an image's, with the video's facts and no pixel signals: a rule reading `signals.*` fails and
 * so does not match, and nothing is recorded for `policy simulate`.
 */
export function videoPolicyRouter(deps: VideoPolicyDeps) {
  return async function routeVideo(submission: SubmissionWithSlugs, media: VideoFacts): Promise<PolicyRouting | null> {
    const { outcome } = await routeFrame(
      {
        db: deps.db,
        cache: deps.policies.cache,
        similarity: deps.nearDuplicates ?? DEFAULT_SIMILARITY,
        ...(deps.policies.scoring ? { scoring: deps.policies.scoring } : {}),
        ...(deps.policies.observer ? { observer: deps.policies.observer } : {}),
        now: deps.now,
      },
      {
        id: submission.id,
        channelId: submission.channelId,
        agentId: submission.agentId,
        frame: frameFacts(submission, {
          width: media.width ?? 0,
          height: media.height ?? 0,
          bytes: media.bytes,
          durationMs: media.durationMs,
        }),
        pixels: null,
        hash: null,
        ...(media.preview ? { preview: media.preview } : {}),
      },
    );
    return policyRouting(outcome, deps.now());
  };
}

export type RouteVideo = ReturnType<typeof videoPolicyRouter>;
