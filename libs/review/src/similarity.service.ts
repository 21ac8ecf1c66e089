import type { ReviewSimilarFrame } from '@framedesk/contracts';
import { type Database, DEFAULT_SIMILARITY, type SimilaritySettings } from '@framedesk/db';
import { DomainError } from '@framedesk/domain';
import { type MediaUrlFn, queueItemView } from './review.views';

export type NearDuplicateSettings = SimilaritySettings;

/**
 * Near-duplicates of a frame: earlier frames of its channel, within the window, whose perceptual
 * fingerprint differs in at most `maxDistance` bits. Frames without a fingerprint have none.
 */
export function similarityService(deps: {
  readonly db: Database;
  readonly mediaUrl: MediaUrlFn;
  readonly settings?: NearDuplicateSettings;
}) {
  const { db, mediaUrl } = deps;
  const settings = deps.settings ?? DEFAULT_SIMILARITY;
  const repo = db.repos.fingerprints;

  async function similar(submissionId: string): Promise<ReviewSimilarFrame[]> {
    const own = await repo.find(submissionId);
    if (!own) return [];
    const matches = await repo.search(own, settings);
    const rows = new Map((await repo.frames(matches.map((m) => m.submissionId))).map((r) => [r.id, r]));
    return matches.flatMap((m) => {
      const row = rows.get(m.submissionId);
      if (!row) return []; // deleted meanwhile
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
    async assertEarlierFrame(submissionId: string, duplicateOf: string): Promise<void> {
      const [frame, original] = await Promise.all([
        db.repos.submissions.findById(submissionId),
        db.repos.submissions.findById(duplicateOf),
      ]);
      const invalid = (detail: string) =>
        new DomainError('validation_failed', detail, { errors: [{ pointer: '/duplicate_of', detail }] });
      if (!frame) throw new DomainError('not_found', `No submission ${submissionId}.`);
      if (!original || original.id === frame.id) throw invalid(`duplicate_of must name another frame.`);
      if (original.channelId !== frame.channelId) throw invalid('duplicate_of must be a frame of the same channel.');
      if (original.createdAt >= frame.createdAt) throw invalid('duplicate_of must be an earlier frame.');
    },
  };
}

export type SimilarityService = ReturnType<typeof similarityService>;
