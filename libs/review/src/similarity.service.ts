import type { ReviewSimilarFrame } from '@framedesk/contracts';
import { type ChannelScope, type Database, DEFAULT_SIMILARITY, type SimilaritySettings } from '@framedesk/db';
import { DomainError } from '@framedesk/domain';
import { type MediaUrlFn, queueItemView } from './review.views';

export type NearDuplicateSettings = SimilaritySettings;

/**
 * Near-duplicates of a frame: earlier frames of its channel, within the window, whose perceptual
 * fingerprint differs in at most `maxDistance` bits. Frames without a fingerprint have none.
 */
export function similarityService(deps: { readonly db: Database; readonly settings?: NearDuplicateSettings }) {
  const { db } = deps;
  const settings = deps.settings ?? DEFAULT_SIMILARITY;
  const repo = db.repos.fingerprints;

  /** Only frames inside `scope` are read (the search itself stays inside the frame's channel). */
  async function similar(
    submissionId: string,
    scope: ChannelScope,
    mediaUrl: MediaUrlFn,
  ): Promise<ReviewSimilarFrame[]> {
    const own = await repo.find(submissionId);
    if (!own) return [];
    const matches = await repo.search(own, settings);
    const rows = new Map(
      (
        await repo.frames(
          matches.map((m) => m.submissionId),
          scope,
        )
      ).map((r) => [r.id, r]),
    );
    return matches.flatMap((m) => {
      const row = rows.get(m.submissionId);
      if (!row) return []; // deleted meanwhile, or outside the scope
      const item = queueItemView(row, mediaUrl, '', new Map(), new Date());
      return [
        {
          id: row.id,
          title: item.title,
          status: row.status,
          channel_slug: item.channel_slug,
          distance: m.distance,
          thumbnail_url: item.thumbnail_url,
          created_at: item.created_at,
        },
      ];
    });
  }

  return {
    similar,

    /** How many near-duplicates each frame had when it was fingerprinted (0 without a fingerprint). */
    async counts(submissionIds: readonly string[]): Promise<Map<string, number>> {
      const rows = await repo.findMany(submissionIds);
      return new Map(rows.map((r) => [r.submissionId, r.similarCount]));
    },

    /**
     * A rejection as "Duplicate of an earlier frame" names the frame it duplicates: an earlier
     * frame of the same channel (usually one of `similar`, but the reviewer may know better).
     */
    async assertEarlierFrame(submissionId: string, duplicateOf: string, scope: ChannelScope): Promise<void> {
      const [frame, original] = await Promise.all([
        db.repos.review.findInScope(submissionId, scope),
        db.repos.review.findInScope(duplicateOf, scope),
      ]);
      const invalid = (detail: string) =>
        new DomainError('validation_failed', detail, { errors: [{ pointer: '/duplicate_of', detail }] });
      if (!frame) throw new DomainError('not_found', `No submission ${submissionId}.`);
      // A frame of another channel reads like one that does not exist: the answer reveals nothing.
      if (!original || original.id === frame.id || original.channelId !== frame.channelId)
        throw invalid('duplicate_of must name another frame of the same channel.');
      if (original.createdAt >= frame.createdAt) throw invalid('duplicate_of must be an earlier frame.');
    },
  };
}

export type SimilarityService = ReturnType<typeof similarityService>;
