import type { ProjectConfig } from '@framedesk/config';
import type { Database } from '@framedesk/db';
import { formatsForMimeTypes, type ImageVariant, isImageProcessingError, renderVariants } from '@framedesk/media';
import type { QueueProducer } from '@framedesk/queues';
import { type ObjectStorage, ObjectNotFoundError, readObject } from '@framedesk/storage';
import { imageVariantSpecs, withOneRetry, writeImageVariants } from './image-variants';
import { recordMediaOrDiscard } from './media-guard';

/**
 * `public`, the full-resolution delivery variant (issue 39), is made only for frames that are
 * delivered: when a frame is promoted (the `image.publish` job, enqueued by
 * `withPublicOnPromotion` wherever a promotion is committed) or on the first request for it.
 * Processing makes the other variants; a frame rejected, failed or purged never gets `public`.
 * About half of a frame's encoding CPU went into it (docs/performance.md, "Variants").
 */
export const LAZY_VARIANT = 'public';

/** The variants processing makes: the configured ones but `public`. */
export function processingVariantNames(config: Pick<ProjectConfig, 'delivery'>): string[] {
  return config.delivery.vendor_image_variants.filter((name) => name !== LAZY_VARIANT);
}

/** Whether the project delivers a `public` variant at all. */
export function deliversPublic(config: Pick<ProjectConfig, 'delivery'>): boolean {
  return config.delivery.vendor_image_variants.includes(LAZY_VARIANT);
}

/**
 * Whether a frame's `public` can be made: `now` (promoted), `later` (it may still be promoted:
 * received, processing or in review) or `never` (rejected, failed, purged, not an image).
 */
export type PublicAvailability = 'now' | 'later' | 'never';

const MAY_STILL_BE_PROMOTED = new Set(['received', 'media_processing', 'needs_review']);

export type PublicOutcome =
  | { readonly outcome: 'made' | 'present' }
  /** Not promoted (yet, or never): nothing made. */
  | { readonly outcome: 'skipped'; readonly reason: string };

/**
 * Makes a promoted image's `public` variant from its original and records it behind the media
 * guard (media-guard.ts), as every media write. Idempotent (same key, same bytes, an upsert), so
 * the job and a request racing for one frame both succeed.
 */
export function publicVariantService(deps: {
  readonly db: Database;
  readonly storage: ObjectStorage;
  readonly config: Pick<ProjectConfig, 'delivery' | 'media'>;
}) {
  const spec = imageVariantSpecs(deps.config).find((s) => s.name === LAZY_VARIANT);
  const allowedFormats = formatsForMimeTypes(deps.config.media.allowed_image_mime_types);

  /** Why `public` may not be made for this frame now, or null when it may. */
  const refusal = async (submissionId: string): Promise<string | null> => {
    const row = await deps.db.repos.submissions.findById(submissionId);
    if (!row) return 'no such submission';
    if (row.mediaType !== 'image') return 'not an image';
    if (row.purgedAt) return 'its media were purged';
    if (row.status !== 'promoted') return `status is ${row.status}`;
    return null;
  };

  /** Decodes the original and encodes it whole (no fingerprint: the frame has one). */
  const render = async (source: { bucket: string; key: string }): Promise<ImageVariant> => {
    const input = await readObject(deps.storage, source.bucket, source.key, deps.config.media.multipart_max_bytes);
    return (await renderVariants(input, [spec!], { allowedFormats })).variants[0]!;
  };

  /**
   * A variant processing made at the frame's own size (`preview` of a frame that fits its
   * 1024×1024 box) has exactly `public`'s pixels and bytes (libs/media resizes nothing at equal
   * size and encodes alike): copied, with no decode.
   */
  const sameSizeVariant = async (submissionId: string): Promise<ImageVariant | null> => {
    const row = await deps.db.repos.submissions.findById(submissionId);
    const stored = (await deps.db.repos.mediaObjects.listForSubmission(submissionId)).find(
      (m) => m.kind === 'variant' && m.width === row?.width && m.height === row?.height && m.width !== null,
    );
    if (!stored || stored.width === null || stored.height === null) return null;
    const data = await readObject(deps.storage, stored.bucket, stored.key);
    return {
      name: LAZY_VARIANT,
      data,
      width: stored.width,
      height: stored.height,
      byteSize: data.length,
      contentType: 'image/webp',
    };
  };

  return {
    async availability(submissionId: string): Promise<PublicAvailability> {
      if (!spec) return 'never';
      const row = await deps.db.repos.submissions.findById(submissionId);
      if (!row || row.mediaType !== 'image' || row.purgedAt) return 'never';
      if (row.status === 'promoted') return 'now';
      return MAY_STILL_BE_PROMOTED.has(row.status) ? 'later' : 'never';
    },

    async make(submissionId: string): Promise<PublicOutcome> {
      if (!spec) return { outcome: 'skipped', reason: 'the project delivers no public variant' };
      const refused = await refusal(submissionId);
      if (refused) return { outcome: 'skipped', reason: refused };
      if (await deps.db.repos.mediaObjects.find(submissionId, 'variant', LAZY_VARIANT)) return { outcome: 'present' };
      const source = await deps.db.repos.mediaObjects.find(submissionId, 'original', 'original');
      if (!source) return { outcome: 'skipped', reason: 'no original recorded' };
      let variant: ImageVariant;
      try {
        variant = (await sameSizeVariant(submissionId)) ?? (await render(source));
      } catch (error) {
        if (error instanceof ObjectNotFoundError) return { outcome: 'skipped', reason: 'the original is missing' };
        if (isImageProcessingError(error)) return { outcome: 'skipped', reason: error.message };
        throw error;
      }
      // Through the media guard, as every media write: recorded only while the frame is open,
      // under its row lock; erased or purged meanwhile (retention, erasure), what was written goes.
      const rows = await writeImageVariants(deps.storage, submissionId, source.bucket, [variant]);
      const recorded = await withOneRetry(() =>
        recordMediaOrDiscard(
          deps,
          submissionId,
          rows,
          async (repos) => void (await repos.mediaObjects.upsertMany(rows)),
        ),
      );
      if (!recorded) return { outcome: 'skipped', reason: 'its media were purged meanwhile' };
      return { outcome: 'made' };
    },
  };
}

export type PublicVariantService = ReturnType<typeof publicVariantService>;

/**
 * Every promotion committed through `db` enqueues the making of the frame's `public` variant:
 * the one place a promotion by a reviewer, by the system (`requires_review: false`) or by a review
 * policy passes through. A failed enqueue (Redis down) does not undo the promotion: the frame's
 * `public` is then made on its first request, or by the reconciler's pass.
 */
export function withPublicOnPromotion<D extends Pick<Database, 'transition'>>(
  db: D,
  queues: Pick<QueueProducer, 'enqueue'>,
  onError: (error: unknown, submissionId: string) => void = () => undefined,
): D {
  return {
    ...db,
    async transition(...args: Parameters<Database['transition']>) {
      const result = await db.transition(...args);
      if (result.ok && args[0].to === 'promoted' && result.submission.mediaType === 'image') {
        const submissionId = args[0].id;
        await queues.enqueue('image.publish', { submissionId }).catch((error: unknown) => onError(error, submissionId));
      }
      return result;
    },
  } as D;
}
