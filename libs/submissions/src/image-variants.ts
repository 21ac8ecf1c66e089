import { parseVariantName, type ProjectConfig, type VariantSpec } from '@framedesk/config';
import type { Database } from '@framedesk/db';
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

async function upsertWithRetry(work: () => Promise<unknown>): Promise<void> {
  // Two racing workers may both insert the same (submission, kind, name): ON CONFLICT makes the
  // second wait and update, and a failure that still gets through (a deadlock) is tried once more.
  try {
    await work();
  } catch {
    await work();
  }
}

/**
 * Stores rendered variants beside the original and records them. Keys and rows are
 * deterministic: a retry or a racing worker rewrites the same set. The files are written side
 * by side, then every variant row in one statement.
 */
export async function storeImageVariants(
  deps: { readonly db: Database; readonly storage: ObjectStorage },
  submissionId: string,
  bucket: string,
  variants: readonly ImageVariant[],
): Promise<void> {
  const stored = await Promise.all(
    variants.map(async (variant) => {
      const key = storageKeys.variant(submissionId, variant.name);
      const object = await deps.storage.put(bucket, key, variant.data, { contentType: variant.contentType });
      return { variant, key, object };
    }),
  );
  await upsertWithRetry(() =>
    deps.db.repos.mediaObjects.upsertMany(
      stored.map(({ variant, key, object }) => ({
        submissionId,
        kind: 'variant',
        name: variant.name,
        bucket,
        key,
        contentType: variant.contentType,
        byteSize: object.byteSize,
        width: variant.width,
        height: variant.height,
        sha256: object.sha256,
      })),
    ),
  );
}
