import type { ProjectConfig } from '@framedesk/config';
import type { Database, SimilaritySettings, StoredOriginal, SubmissionWithSlugs } from '@framedesk/db';
import type { FailureCode, SubmissionStatus } from '@framedesk/domain';
import { formatsForMimeTypes, isImageProcessingError, processImage } from '@framedesk/media';
import { annotateSpan } from '@framedesk/observability';
import type { CpuSlot } from '@framedesk/queues';
import { finishProcessing } from './system-review';
import {
  policyCache,
  type PolicyCache,
  type PolicyObserver,
  type PolicyOutcome,
  reportOutcome,
  type ScoringClient,
} from '@framedesk/policies';
import { prepareImageRoute } from './policy-routing';
import { type ObjectStorage, ObjectNotFoundError, ObjectTooLargeError, readObject } from '@framedesk/storage';
import { imageVariantSpecs, withOneRetry, writeImageVariants } from './image-variants';
import { discardIfClosed, recordMediaRows } from './media-guard';
import { LAZY_VARIANT } from './public-variant';
import { failExpiredUpload } from './upload-expiry';
import { deleteUploadPartials, type UploadPartialStores } from './upload-partials';

const SYSTEM = { type: 'system' } as const;

export type ProcessingOutcome =
  | {
      readonly outcome: 'needs_review' | 'promoted' | 'rejected';
      readonly width: number;
      readonly height: number;
      readonly variants: readonly string[];
    }
  | { readonly outcome: 'failed'; readonly code: FailureCode; readonly message: string }
  | { readonly outcome: 'skipped'; readonly reason: string };

export interface ImageProcessingDeps {
  readonly db: Database;
  readonly storage: ObjectStorage;
  readonly config: ProjectConfig;
  /** Pixel limit of a decoded original (sharp's `limitInputPixels`). */
  readonly maxInputPixels?: number;
  /** What counts as a near-duplicate when the fingerprint is stored. */
  readonly nearDuplicates?: SimilaritySettings;
  /** Review policies (docs/policies.md): the worker's cache, the scoring hook, its metrics. */
  readonly policies?: { cache?: PolicyCache; scoring?: ScoringClient; observer?: PolicyObserver };
}

/** Statuses from which a failure may be recorded by the pipeline (never a reviewer's queue). */
const PIPELINE_STATUSES: readonly SubmissionStatus[] = ['received', 'waiting_for_upload', 'media_processing'];

/**
 * Records a permanent failure (compare-and-set, one event). False when the submission already
 * left the pipeline (someone else finished or failed it first).
 */
export async function markSubmissionFailed(
  db: Database,
  submissionId: string,
  code: FailureCode,
  message: string,
): Promise<boolean> {
  const result = await db.transition({
    id: submissionId,
    to: 'failed',
    actor: SYSTEM,
    onlyFrom: PIPELINE_STATUSES,
    reason: code,
    patch: { failureCode: code, failureMessage: message },
  });
  return result.ok;
}

/**
 * The image pipeline (DESIGN.md §3, §5): `received` → `media_processing` → variants stored →
 * `needs_review`, or `promoted` by the system when review is not required. Permanent problems
 * end `failed` with a code; anything else it throws is transient and the job is retried.
 */
export function imageProcessingService(deps: ImageProcessingDeps) {
  // `public` is made once the frame is promoted (public-variant.ts), never here.
  const specs = imageVariantSpecs(deps.config).filter((spec) => spec.name !== LAZY_VARIANT);
  const allowedFormats = formatsForMimeTypes(deps.config.media.allowed_image_mime_types);
  const policies = { ...deps.policies, cache: deps.policies?.cache ?? policyCache(deps.db) };

  const fail = async (submissionId: string, code: FailureCode, message: string): Promise<ProcessingOutcome> =>
    (await markSubmissionFailed(deps.db, submissionId, code, message))
      ? { outcome: 'failed', code, message }
      : { outcome: 'skipped', reason: 'left the pipeline before the failure was recorded' };

  /**
   * `received` → `media_processing`, reading where the original is in the same statement. A retry
   * after a crash finds it already processing and carries on; any other status is someone else's.
   */
  async function start(
    submissionId: string,
  ): Promise<
    { ok: true; original: StoredOriginal | null; submission: SubmissionWithSlugs } | { ok: false; reason: string }
  > {
    const started = await deps.db.transition({
      id: submissionId,
      to: 'media_processing',
      actor: SYSTEM,
      onlyFrom: ['received'],
      onlyMediaType: 'image',
      withOriginal: true,
    });
    if (started.ok) {
      const { submission } = started;
      annotateSpan({ 'framedesk.agent': submission.agent.slug, 'framedesk.channel': submission.channel.slug });
      return { ok: true, original: started.original ?? null, submission };
    }
    if (started.current === null) return { ok: false, reason: 'no such submission' };
    if (started.mediaType !== 'image') return { ok: false, reason: 'not an image' };
    if (started.current !== 'media_processing') return { ok: false, reason: `status is ${started.current}` };
    const [objects, submission] = await Promise.all([
      deps.db.repos.mediaObjects.listForSubmission(submissionId),
      deps.db.repos.submissions.findById(submissionId),
    ]);
    if (!submission) return { ok: false, reason: 'no such submission' };
    return { ok: true, original: objects.find((o) => o.kind === 'original') ?? null, submission };
  }

  return {
    /**
     * `cpuSlot`: held only around the pixel work (decode, variants, fingerprint), so a runner can
     * bound what runs on its cores while other images are read, stored and recorded meanwhile.
     */
    async process(submissionId: string, options: { cpuSlot?: CpuSlot } = {}): Promise<ProcessingOutcome> {
      const started = await start(submissionId);
      if (!started.ok) return { outcome: 'skipped', reason: started.reason };

      const source = started.original;
      if (!source) return fail(submissionId, 'processing_error', 'The original image is missing.');
      let input: Buffer;
      try {
        input = await readObject(deps.storage, source.bucket, source.key, deps.config.media.multipart_max_bytes);
      } catch (error) {
        if (error instanceof ObjectNotFoundError)
          return fail(submissionId, 'processing_error', 'The original image is missing from storage.');
        if (error instanceof ObjectTooLargeError)
          return fail(submissionId, 'image_too_large', 'The original image is larger than allowed.');
        throw error;
      }

      let image;
      await options.cpuSlot?.acquire();
      try {
        image = await processImage(input, specs, {
          allowedFormats,
          ...(deps.maxInputPixels ? { maxInputPixels: deps.maxInputPixels } : {}),
        });
      } catch (error) {
        if (isImageProcessingError(error)) return fail(submissionId, error.code, error.message);
        throw error;
      } finally {
        options.cpuSlot?.release();
      }

      const rows = await writeImageVariants(deps.storage, submissionId, source.bucket, image.variants);
      const variants = image.variants.map((v) => v.name);
      const route = await prepareImageRoute(policies, started.submission, input.length, image);
      const decided: { outcome?: PolicyOutcome | null } = {};
      // One transaction: the media guard's lock with the variant rows, the fingerprint (made by
      // processImage from the pixels it decoded for the variants: no second decode) with the
      // history a policy reads, and the status change, which records the signals.
      const done = await withOneRetry(() =>
        finishProcessing(deps.db, {
          id: submissionId,
          requiresReview: deps.config.approval_defaults.requires_review,
          reason: null,
          patch: { width: image.width, height: image.height },
          data: { variants },
          record: async (repos) => {
            await recordMediaRows(repos, submissionId, rows); // erased or purged meanwhile: nothing commits
            const history = await repos.policies.saveFingerprintWithHistory({
              submissionId,
              perceptualHash: image.perceptualHash,
              ...(deps.nearDuplicates ? { settings: deps.nearDuplicates } : {}),
              ...(route.agentWindow ? { agent: route.agentWindow } : {}),
            });
            const { signals, routing, outcome } = route.decide(history ?? { nearest: {}, agent: null });
            decided.outcome = outcome;
            return { policy: routing, patch: signals ? { signals: { ...signals } } : {} };
          },
        }),
      ).catch(discardIfClosed(deps.storage, rows));
      if (decided.outcome) reportOutcome(policies.observer, started.submission.channel.slug, decided.outcome);
      if (!done) return { outcome: 'skipped', reason: 'erased or purged meanwhile: what it wrote is deleted' };
      if (!done.ok) return { outcome: 'skipped', reason: `lost the race (status ${done.current})` };
      return {
        outcome: done.to,
        width: image.width,
        height: image.height,
        variants,
      };
    },
  };
}

export type ImageProcessingService = ReturnType<typeof imageProcessingService>;

export type UploadExpiryOutcome =
  | { readonly outcome: 'expired' }
  | { readonly outcome: 'early'; readonly expiresAt: Date }
  | { readonly outcome: 'skipped'; readonly reason: string };

/**
 * DESIGN.md §3: an upload still waiting for its media at `expires_at` fails with `upload_expired`.
 * With `partials` (the local provider), the partial bytes of a session that ended unfinished are
 * deleted here and now, so they stop counting against the agent's quota.
 */
export async function expireUpload(
  db: Database,
  submissionId: string,
  uploadId: string,
  now = new Date(),
  partials?: UploadPartialStores,
): Promise<UploadExpiryOutcome> {
  const upload = await db.repos.mediaUploads.findBySubmission(submissionId);
  if (!upload || upload.id !== uploadId) return { outcome: 'skipped', reason: 'no such upload' };
  if (upload.expiresAt.getTime() > now.getTime()) return { outcome: 'early', expiresAt: upload.expiresAt };
  const result = await failExpiredUpload(db, submissionId);
  // Failed now, or before (the upload door saw the expiry first, a retry of this job): never completed.
  const unfinished = result.ok || (result.current === 'failed' && upload.completedAt === null);
  if (partials && unfinished && upload.partialsDeletedAt === null) await deleteUploadPartials(partials, uploadId);
  return result.ok ? { outcome: 'expired' } : { outcome: 'skipped', reason: `status is ${result.current}` };
}
