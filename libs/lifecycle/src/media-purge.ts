import type { MediaHolder } from '@framedesk/db';
import type { ObjectStorage } from '@framedesk/storage';
import type { VideoProvider } from '@framedesk/video-provider';

/** Media kinds we store ourselves; `external` rows are a provider's URLs, gone with its copy. */
export const STORED_MEDIA_KINDS: readonly string[] = ['original', 'variant', 'poster'];

export interface MediaDeletionDeps {
  readonly storage: Pick<ObjectStorage, 'delete'>;
  readonly provider: Pick<VideoProvider, 'name' | 'deleteVideo'>;
  /** Awaited before each deletion (the retention purge's rate limit); none by default. */
  readonly pace?: () => Promise<void>;
  /** Deletions in flight at once. */
  readonly concurrency?: number;
}

export interface DeletedMedia {
  readonly objects: number;
  readonly bytes: number;
  readonly providerVideos: number;
  /** Provider copies we could not delete: made with another provider than the one configured now. */
  readonly providerSkipped: number;
}

export const NO_MEDIA: DeletedMedia = { objects: 0, bytes: 0, providerVideos: 0, providerSkipped: 0 };
const NOTHING = NO_MEDIA;

export function addDeleted(a: DeletedMedia, b: DeletedMedia): DeletedMedia {
  return {
    objects: a.objects + b.objects,
    bytes: a.bytes + b.bytes,
    providerVideos: a.providerVideos + b.providerVideos,
    providerSkipped: a.providerSkipped + b.providerSkipped,
  };
}

/** Runs `tasks` with at most `limit` at once; the first failure rejects (the rest still settle). */
async function runLimited(tasks: readonly (() => Promise<void>)[], limit: number): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, tasks.length) }, async () => {
    while (next < tasks.length) await tasks[next++]!();
  });
  const results = await Promise.allSettled(lanes);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
}

export interface MediaDeletion {
  /** What was deleted, per submission. */
  readonly deleted: Map<string, DeletedMedia>;
  /** Submissions whose provider copy is not deleted (refused, or made with another provider): why. */
  readonly failures: Map<string, string>;
}

/**
 * Deletes what `holders` have stored (originals, variants, posters) and their provider's copy of
 * a video. Every deletion is idempotent (a missing object or an unknown video is fine), so a
 * batch that fails half-way is simply done again: the rows still say what to delete. A storage
 * failure throws (the run stops; the frames stay pending); a provider copy that cannot be
 * deleted is reported in `failures` and the frame stays pending, retried by the next run.
 */
export async function deleteStoredMedia(
  deps: MediaDeletionDeps,
  holders: readonly MediaHolder[],
): Promise<MediaDeletion> {
  const pace = deps.pace ?? (async () => undefined);
  const deleted = new Map<string, DeletedMedia>(holders.map((h) => [h.id, NOTHING]));
  const failures = new Map<string, string>();
  const add = (id: string, part: Partial<DeletedMedia>) =>
    deleted.set(id, addDeleted(deleted.get(id) ?? NOTHING, { ...NOTHING, ...part }));
  const tasks: (() => Promise<void>)[] = [];
  for (const holder of holders) {
    for (const media of holder.media.filter((m) => STORED_MEDIA_KINDS.includes(m.kind)))
      tasks.push(async () => {
        await pace();
        await deps.storage.delete(media.bucket, media.key);
        add(holder.id, { objects: 1, bytes: Number(media.byteSize) });
      });
    const upload = holder.upload;
    if (upload?.providerRef && upload.provider !== 'local') {
      const ref = upload.providerRef;
      tasks.push(async () => {
        if (upload.provider !== deps.provider.name) {
          failures.set(
            holder.id,
            `its copy at ${upload.provider} cannot be deleted: ${deps.provider.name} is configured`,
          );
          return void add(holder.id, { providerSkipped: 1 });
        }
        await pace();
        try {
          await deps.provider.deleteVideo(ref);
        } catch (error) {
          failures.set(holder.id, `${upload.provider} refused to delete ${ref}: ${(error as Error).message}`);
          return;
        }
        add(holder.id, { providerVideos: 1 });
      });
    }
  }
  await runLimited(tasks, deps.concurrency ?? 8);
  return { deleted, failures };
}

/**
 * A rate limit: at most `perSecond` calls of the returned function let through per second,
 * spaced evenly (callers wait their turn).
 */
export function createPacer(
  perSecond: number,
  clock: { now: () => number; sleep: (ms: number) => Promise<void> } = {
    now: () => Date.now(),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  },
): () => Promise<void> {
  const spacing = 1000 / perSecond;
  let nextSlot = 0;
  return async () => {
    const now = clock.now();
    const slot = Math.max(nextSlot, now);
    nextSlot = slot + spacing;
    if (slot > now) await clock.sleep(slot - now);
  };
}
