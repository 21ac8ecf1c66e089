import type { ProjectConfig } from '@framedesk/config';
import type { Database } from '@framedesk/db';
import type { SubmissionStatus } from '@framedesk/domain';
import { formatsForMimeTypes, isImageProcessingError, processImage } from '@framedesk/media';
import { type ObjectStorage, ObjectNotFoundError, readObject } from '@framedesk/storage';
import { imageVariantSpecs, writeImageVariants } from '@framedesk/submissions';
import { recordMediaOrDiscard } from '@framedesk/submissions';
import { LAZY_VARIANT } from '@framedesk/submissions';

/** Frames whose variants are part of what reviewers and agents see: the consistency check's scope. */
export const PROCESSED_STATUSES: readonly SubmissionStatus[] = ['needs_review', 'promoted', 'rejected'];

export type RederiveOutcome =
  | { readonly outcome: 'rederived'; readonly variants: readonly string[] }
  | { readonly outcome: 'skipped'; readonly reason: string };

/**
 * Renders a processed image's variants again from its original (`media verify --repair`), without
 * touching its status: the pipeline's own job only moves frames forward.
 */
export function mediaRepairService(deps: {
  readonly db: Database;
  readonly storage: ObjectStorage;
  readonly config: Pick<ProjectConfig, 'delivery' | 'media'>;
}) {
  const specs = imageVariantSpecs(deps.config);
  const allowedFormats = formatsForMimeTypes(deps.config.media.allowed_image_mime_types);

  const current = async (id: string) => {
    const row = await deps.db.repos.submissions.findById(id);
    if (!row) return { ok: false as const, reason: 'no such submission' };
    if (row.mediaType !== 'image') return { ok: false as const, reason: 'not an image' };
    if (!PROCESSED_STATUSES.includes(row.status)) return { ok: false as const, reason: `status is ${row.status}` };
    if (row.purgedAt) return { ok: false as const, reason: 'its media were purged' };
    return { ok: true as const, promoted: row.status === 'promoted' };
  };

  return {
    async rederive(submissionId: string): Promise<RederiveOutcome> {
      const before = await current(submissionId);
      if (!before.ok) return { outcome: 'skipped', reason: before.reason };
      const source = await deps.db.repos.mediaObjects.find(submissionId, 'original', 'original');
      if (!source) return { outcome: 'skipped', reason: 'no original recorded' };
      let image;
      try {
        const input = await readObject(deps.storage, source.bucket, source.key, deps.config.media.multipart_max_bytes);
        // `public` only for a promoted frame (public-variant.ts): never for one in review or rejected.
        const wanted = before.promoted ? specs : specs.filter((spec) => spec.name !== LAZY_VARIANT);
        image = await processImage(input, wanted, { allowedFormats });
      } catch (error) {
        if (error instanceof ObjectNotFoundError) return { outcome: 'skipped', reason: 'the original is missing' };
        if (isImageProcessingError(error)) return { outcome: 'skipped', reason: error.message };
        throw error;
      }
      // Purged or erased while rendering: nothing is recorded, and what was just written goes too.
      const rows = await writeImageVariants(deps.storage, submissionId, source.bucket, image.variants);
      const recorded = await recordMediaOrDiscard(deps, submissionId, rows, async (repos) => {
        await repos.mediaObjects.upsertMany(rows);
      });
      if (!recorded) return { outcome: 'skipped', reason: 'its media were purged meanwhile' };
      return { outcome: 'rederived', variants: image.variants.map((v) => v.name) };
    },
  };
}

export type MediaRepairService = ReturnType<typeof mediaRepairService>;
