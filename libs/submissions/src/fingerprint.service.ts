import type { Settings } from '@framedesk/config';
import type { Database, SimilaritySettings } from '@framedesk/db';
import { perceptualHash } from '@framedesk/media';
import { type ObjectStorage, ObjectNotFoundError, readObject } from '@framedesk/storage';

/**
 * Stores a frame's perceptual fingerprint, already computed (the image pipeline gets it from
 * `processImage`, made from the pixels it decoded for the variants). False: no such submission.
 */
export async function saveFingerprint(
  db: Database,
  submissionId: string,
  hash: bigint,
  settings?: SimilaritySettings,
): Promise<boolean> {
  const saved = await db.repos.fingerprints.save({
    submissionId,
    perceptualHash: hash,
    ...(settings ? { settings } : {}),
  });
  return saved !== null;
}

/**
 * Computes a frame's perceptual fingerprint from its encoded bytes (a video's poster, an image's
 * original in the backfill) and stores it with the submission. Undecodable bytes store nothing: a
 * frame the pipeline accepted always decodes, so this only skips what cannot be compared anyway.
 */
export async function fingerprintFrame(
  db: Database,
  submissionId: string,
  image: Buffer,
  settings?: SimilaritySettings,
): Promise<boolean> {
  let hash: bigint;
  try {
    hash = await perceptualHash(image);
  } catch {
    return false;
  }
  return saveFingerprint(db, submissionId, hash, settings);
}

export type BackfillOutcome = 'fingerprinted' | 'no_media' | 'undecodable';

/**
 * Fingerprints a processed frame from storage (the CLI's backfill): an image's original, a
 * video's poster. Videos hosted by a provider have no stored poster and are reported as no_media.
 */
export async function fingerprintStoredFrame(
  deps: { db: Database; storage: ObjectStorage; maxBytes?: number; settings?: SimilaritySettings },
  frame: { id: string; mediaType: 'image' | 'video' },
): Promise<BackfillOutcome> {
  const objects = await deps.db.repos.mediaObjects.listForSubmission(frame.id);
  const source =
    frame.mediaType === 'image' ? objects.find((o) => o.kind === 'original') : objects.find((o) => o.kind === 'poster');
  if (!source) return 'no_media';
  let bytes: Buffer;
  try {
    bytes = await readObject(deps.storage, source.bucket, source.key, deps.maxBytes);
  } catch (error) {
    if (error instanceof ObjectNotFoundError) return 'no_media';
    throw error;
  }
  return (await fingerprintFrame(deps.db, frame.id, bytes, deps.settings)) ? 'fingerprinted' : 'undecodable';
}

/** The near-duplicate settings (NEAR_DUPLICATE_MAX_DISTANCE, NEAR_DUPLICATE_WINDOW_DAYS). */
export function nearDuplicateSettings(
  settings: Pick<Settings, 'NEAR_DUPLICATE_MAX_DISTANCE' | 'NEAR_DUPLICATE_WINDOW_DAYS'>,
): SimilaritySettings {
  return { maxDistance: settings.NEAR_DUPLICATE_MAX_DISTANCE, windowDays: settings.NEAR_DUPLICATE_WINDOW_DAYS };
}
