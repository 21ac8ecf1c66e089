import type { ProjectConfig, Settings } from '@framedesk/config';
import { createDatabase } from '@framedesk/db';
import { createStorage } from '@framedesk/storage';
import { mediaVerifyService } from '@framedesk/lifecycle';
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

/** A deletion pending longer than this is no purge or erasure still at work: something refuses it. */
export const PENDING_DELETION_WARN_MS = 3_600_000;

/**
 * Media marked for deletion (retention, erasure) and not all deleted yet: the retention job
 * retries them every run; one waiting over an hour, or one whose try failed, is a warning.
 */
export async function checkPendingDeletions(
  settings: Pick<Settings, 'DATABASE_URL'>,
  now = new Date(),
): Promise<CheckResult> {
  const name = 'pending media deletions';
  const db = createDatabase({ url: settings.DATABASE_URL, poolSize: 1 });
  try {
    const pending = await db.repos.retention.pendingCount();
    if (pending.frames === 0)
      return { name, status: 'ok', message: "every purged or erased frame's media are deleted" };
    const oldest = pending.oldest!;
    const late = now.getTime() - oldest.getTime() > PENDING_DELETION_WARN_MS;
    const message =
      `${pending.frames} frame${pending.frames === 1 ? '' : 's'} purged or erased with media not all deleted yet, ` +
      `the oldest since ${oldest.toISOString()}` +
      (pending.lastError ? `; latest failure: ${pending.lastError}` : '');
    if (!late && !pending.lastError) return { name, status: 'ok', message: `${message} (a purge or erasure at work)` };
    return {
      name,
      status: 'warn',
      message,
      fix: "the retention job retries them every RETENTION_INTERVAL_SECONDS: mend the cause (the video provider's credentials, VIDEO_PROVIDER for copies made with another provider), then wait a run",
    };
  } catch (error) {
    return {
      name,
      status: 'warn',
      message: `not checked (${(error instanceof Error ? error.message : String(error)).split('\n')[0]})`,
    };
  } finally {
    await db.close();
  }
}
