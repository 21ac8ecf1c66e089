import type { ProjectConfig, Settings } from '@framedesk/config';
import { createDatabase } from '@framedesk/db';
import { createStorage } from '@framedesk/storage';
import { mediaVerifyService } from '@framedesk/submissions';
import type { CheckResult } from './check-result';

/** Frames and objects per prefix `doctor` looks at: enough to notice, bounded in time. */
export const DOCTOR_MEDIA_SAMPLE = 50;

/** A bounded sample of `media verify`: rows of random frames against storage, the first objects against rows. */
export async function checkMediaSample(settings: Settings, config: ProjectConfig): Promise<CheckResult> {
  const db = createDatabase({ url: settings.DATABASE_URL, poolSize: 2 });
  try {
    const report = await mediaVerifyService({
      db,
      storage: createStorage(settings),
      bucket: config.storage.vendor_originals_bucket,
      imageVariants: config.delivery.vendor_image_variants,
    }).run({ sample: DOCTOR_MEDIA_SAMPLE, graceMs: 24 * 3_600_000 });
    const found = report.missing_objects + report.missing_variants + report.purged_with_media + report.orphans;
    const sample = `sample of ${report.submissions_checked} frames, ${report.objects_checked} objects`;
    if (found === 0) return { name: 'media consistency', status: 'ok', message: `${sample}: rows and objects agree` };
    return {
      name: 'media consistency',
      status: 'warn',
      message:
        `${sample}: ${report.missing_objects} missing objects, ${report.missing_variants} frames missing variants, ` +
        `${report.purged_with_media} purged frames holding media, ${report.orphans} orphans`,
      fix: 'npm run -s cli -- media verify (then --repair)',
    };
  } catch (error) {
    return {
      name: 'media consistency',
      status: 'warn',
      message: `not checked (${(error instanceof Error ? error.message : String(error)).split('\n')[0]})`,
    };
  } finally {
    await db.close();
  }
}
