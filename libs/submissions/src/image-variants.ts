import { parseVariantName, type ProjectConfig, type VariantSpec } from '@framedesk/config';
import type { NewMediaObject } from '@framedesk/db';
import type { ImageVariant } from '@framedesk/media';
import { type ObjectStorage, storageKeys } from '@framedesk/storage';

/** The configured image variants (`delivery.vendor_image_variants`) as sizes to render. */
export function imageVariantSpecs(config: Pick<ProjectConfig, 'delivery'>): VariantSpec[] {
  return config.delivery.vendor_image_variants.map((name) => {
    const spec = parseVariantName(name);
    if (!spec) throw new Error(`unknown image variant ${name}`); // config validation refuses these
    return spec;
  });
}

/**
 * Two racing workers may both insert the same (submission, kind, name): ON CONFLICT makes the
 * second wait and update, and a failure that still gets through (a deadlock) is tried once more.
 */
export async function withOneRetry<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch {
    return work();
  }
}

/**
 * Writes rendered variants beside the original, side by side, and returns their rows to record
 * (the pipeline records them in the transaction that moves the frame on). Keys are
 * deterministic: a retry or a racing worker rewrites the same set.
 */
export async function writeImageVariants(
  storage: ObjectStorage,
  submissionId: string,
  bucket: string,
  variants: readonly ImageVariant[],
): Promise<NewMediaObject[]> {
  return Promise.all(
    variants.map(async (variant) => {
      const key = storageKeys.variant(submissionId, variant.name);
      const object = await storage.put(bucket, key, variant.data, { contentType: variant.contentType });
      return {
        submissionId,
        kind: 'variant' as const,
        name: variant.name,
        bucket,
        key,
        contentType: variant.contentType,
        byteSize: object.byteSize,
        width: variant.width,
        height: variant.height,
        sha256: object.sha256,
      };
    }),
  );
}
