import type { Database, VerifiedSubmission } from '@framedesk/db';
import { LAZY_VARIANT } from '@framedesk/submissions';
import { DomainError, ID_PREFIXES, randomToken } from '@framedesk/domain';
import type { QueueProducer } from '@framedesk/queues';
import { isOwnStorageKey, type ListedObject, type ObjectStorage } from '@framedesk/storage';
import { PROCESSED_STATUSES } from './media-repair.service';
import { STORED_MEDIA_KINDS } from './media-purge';

export type VerifyProblem =
  | {
      readonly type: 'missing_object';
      readonly submission_id: string;
      readonly kind: string;
      readonly name: string;
      readonly key: string;
      readonly repairable: boolean;
    }
  | { readonly type: 'missing_variants'; readonly submission_id: string; readonly names: readonly string[] }
  | { readonly type: 'purged_with_media'; readonly submission_id: string; readonly objects: number }
  | { readonly type: 'orphan'; readonly key: string; readonly byte_size: number; readonly last_modified: string };

export interface VerifyReport {
  readonly submissions_checked: number;
  readonly objects_checked: number;
  /** False for a sample or a channel: orphans are only looked for over the whole bucket. */
  readonly orphans_checked: boolean;
  readonly missing_objects: number;
  readonly missing_variants: number;
  readonly purged_with_media: number;
  readonly orphans: number;
  readonly orphan_bytes: number;
  /** Objects without a row younger than the grace period: possibly a write in flight, not counted. */
  readonly recent_unreferenced: number;
  /** Problems `--repair` cannot mend: a missing original, variants of a video or of a frame without its original. */
  readonly unrepairable: number;
  /** The first problems found (at most 1,000), for reading. */
  readonly problems: readonly VerifyProblem[];
  readonly repair: {
    readonly requeued: number;
    readonly orphans_deleted: number;
    readonly orphan_bytes_deleted: number;
    readonly purged_media_deleted: number;
  } | null;
}

/**
 * The smallest grace: an original is stored before its row commits (the intake, an upload's
 * completion), so a younger unrecorded object may be one about to be recorded.
 */
export const MIN_GRACE_MS = 3_600_000;

export interface VerifyOptions {
  readonly channelSlug?: string;
  readonly repair?: boolean;
  /** Orphans younger than this are left alone (a write whose row is not committed yet); at least MIN_GRACE_MS. */
  readonly graceMs: number;
  /** Look at this many submissions (from a random one) and objects only: `doctor`'s sample. */
  readonly sample?: number;
  readonly batchSize?: number;
}

export interface MediaVerifyDeps {
  readonly db: Database;
  readonly storage: ObjectStorage;
  readonly bucket: string;
  /** `delivery.vendor_image_variants`: what a processed image should have. */
  readonly imageVariants: readonly string[];
  /** For `--repair`: variants are rendered again by the image workers. */
  readonly queues?: Pick<QueueProducer, 'enqueue'>;
  /** Who repairs (`cli:<login>`): every deletion is recorded in account_events first. */
  readonly actor?: string;
  readonly now?: () => Date;
}

const MAX_LISTED = 1000;
const OBJECT_PREFIXES = ['originals/', 'variants/'] as const;

/** Runs `work` over `items`, `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += limit) await Promise.all(items.slice(i, i + limit).map(work));
}

/**
 * `media verify`: walks rows and objects in batches and reports rows whose objects are missing,
 * processed images missing configured variants, purged frames that still hold media, and objects
 * no row records (orphans, with their size). `repair` re-enqueues the rendering of variants where
 * the original is there, deletes the media of purged frames and orphans older than the grace.
 */
export function mediaVerifyService(deps: MediaVerifyDeps) {
  const now = deps.now ?? (() => new Date());

  return {
    async run(options: VerifyOptions): Promise<VerifyReport> {
      if (options.repair && !deps.queues) throw new Error('repair needs the queues');
      if (options.graceMs < MIN_GRACE_MS)
        throw new DomainError(
          'validation_failed',
          '--grace must be at least 1h: a younger object without a row may be an original whose row is about to commit',
        );
      const channel = options.channelSlug ? await deps.db.repos.channels.findBySlug(options.channelSlug) : null;
      if (options.channelSlug && !channel) throw new DomainError('not_found', `no channel ${options.channelSlug}`);
      const batch = options.batchSize ?? 200;
      const state = newState();
      const rows = await walkSubmissions(deps, state, {
        ...(channel ? { channelId: channel.id } : {}),
        batch,
        ...(options.sample !== undefined ? { sample: options.sample } : {}),
        repair: options.repair === true,
      });
      const orphansChecked = !channel;
      if (orphansChecked)
        await walkObjects(deps, state, {
          batch,
          graceMs: options.graceMs,
          at: now(),
          repair: options.repair === true,
          ...(options.sample !== undefined ? { sample: options.sample } : {}),
        });
      return {
        submissions_checked: rows,
        objects_checked: state.objectsChecked,
        orphans_checked: orphansChecked,
        missing_objects: state.counts.missing_object,
        missing_variants: state.counts.missing_variants,
        purged_with_media: state.counts.purged_with_media,
        orphans: state.counts.orphan,
        orphan_bytes: state.orphanBytes,
        recent_unreferenced: state.recent,
        unrepairable: state.unrepairable,
        problems: state.problems,
        repair: options.repair ? state.repair : null,
      };
    },
  };
}

export type MediaVerifyService = ReturnType<typeof mediaVerifyService>;

function newState() {
  const state = {
    problems: [] as VerifyProblem[],
    counts: { missing_object: 0, missing_variants: 0, purged_with_media: 0, orphan: 0 },
    orphanBytes: 0,
    recent: 0,
    objectsChecked: 0,
    unrepairable: 0,
    repair: { requeued: 0, orphans_deleted: 0, orphan_bytes_deleted: 0, purged_media_deleted: 0 },
    report(problem: VerifyProblem) {
      state.counts[problem.type]++;
      if (state.problems.length < MAX_LISTED) state.problems.push(problem);
    },
  };
  return state;
}
type State = ReturnType<typeof newState>;

/** Rows → objects: every stored object a row records must exist; processed images need every variant. */
async function walkSubmissions(
  deps: MediaVerifyDeps,
  state: State,
  options: { channelId?: string; batch: number; sample?: number; repair: boolean },
): Promise<number> {
  // A sample starts at a random id (ids are random): a different slice each time, wrapping
  // around to the first ids when the end comes before the sample is full.
  const start = options.sample !== undefined ? ID_PREFIXES.submission + randomToken() : undefined;
  let afterId = start;
  let wrapped = start === undefined;
  let seen = 0;
  for (;;) {
    const limit = Math.min(options.batch, options.sample !== undefined ? options.sample - seen : options.batch);
    if (limit <= 0) break;
    const page = await deps.db.repos.mediaVerify.submissions({
      ...(options.channelId ? { channelId: options.channelId } : {}),
      ...(afterId ? { afterId } : {}),
      ...(wrapped && start ? { toId: start } : {}),
      limit,
    });
    if (page.length === 0) {
      if (wrapped) break;
      wrapped = true;
      afterId = undefined;
      continue;
    }
    await eachLimited(page, 8, (submission) => checkSubmission(deps, state, submission, options.repair));
    seen += page.length;
    afterId = page.at(-1)!.id;
  }
  return seen;
}

async function checkSubmission(deps: MediaVerifyDeps, state: State, s: VerifiedSubmission, repair: boolean) {
  const stored = s.media.filter((m) => STORED_MEDIA_KINDS.includes(m.kind));
  if (s.purgedAt) {
    if (stored.length === 0) return;
    state.report({ type: 'purged_with_media', submission_id: s.id, objects: stored.length });
    if (repair) {
      await deps.db.repos.mediaVerify.recordRepair(
        { type: 'submission', id: s.id },
        'purged_media_deleted',
        { actor: deps.actor ?? 'system', at: (deps.now ?? (() => new Date()))() },
        { keys: stored.map((m) => `${m.bucket}/${m.key}`) },
      );
      for (const m of stored) await deps.storage.delete(m.bucket, m.key);
      await deps.db.repos.mediaVerify.deleteMediaRows(s.id);
      state.repair.purged_media_deleted += stored.length;
    }
    return;
  }
  const missing: (typeof stored)[number][] = [];
  for (const media of stored) {
    state.objectsChecked++;
    if (!(await deps.storage.stat(media.bucket, media.key))) missing.push(media);
  }
  const processedImage = s.mediaType === 'image' && PROCESSED_STATUSES.includes(s.status);
  const originalThere = stored.some((m) => m.kind === 'original') && !missing.some((m) => m.kind === 'original');
  const repairable = processedImage && originalThere;
  for (const m of missing) {
    if (!(repairable && m.kind === 'variant')) state.unrepairable++;
    state.report({
      type: 'missing_object',
      submission_id: s.id,
      kind: m.kind,
      name: m.name,
      key: m.key,
      repairable: repairable && m.kind === 'variant',
    });
  }
  const have = new Set(stored.filter((m) => m.kind === 'variant').map((m) => m.name));
  // `public` is made once a frame is promoted (public-variant.ts): expected of promoted frames only.
  const expected = deps.imageVariants.filter((name) => name !== LAZY_VARIANT || s.status === 'promoted');
  const absent = processedImage ? expected.filter((name) => !have.has(name)) : [];
  if (absent.length > 0) {
    if (!repairable) state.unrepairable++;
    state.report({ type: 'missing_variants', submission_id: s.id, names: absent });
  }
  if (repair && repairable && (absent.length > 0 || missing.some((m) => m.kind === 'variant'))) {
    await deps.queues!.enqueue('image.rederive', { submissionId: s.id }, { attempt: `repair-${randomToken(6)}` });
    state.repair.requeued++;
  }
}

/** The submission id in one of our keys (`originals/<id>/…`, `variants/<id>/…`). */
const submissionOf = (key: string) => key.split('/')[1] ?? '';

/** Objects → rows: every object under our prefixes must be recorded by a row. */
async function walkObjects(
  deps: MediaVerifyDeps,
  state: State,
  options: { batch: number; graceMs: number; at: Date; repair: boolean; sample?: number },
): Promise<void> {
  for (const prefix of OBJECT_PREFIXES) {
    let cursor: string | null = null;
    let seen = 0;
    do {
      const limit = Math.min(options.batch, options.sample !== undefined ? options.sample - seen : options.batch);
      if (limit <= 0) break;
      const page = await deps.storage.list(deps.bucket, { prefix, cursor, limit });
      seen += page.objects.length;
      state.objectsChecked += page.objects.length;
      const unrecorded = await unrecordedOf(deps, page.objects);
      const old = unrecorded.filter((o) => options.at.getTime() - o.lastModified.getTime() >= options.graceMs);
      state.recent += unrecorded.length - old.length;
      for (const o of old) {
        state.orphanBytes += o.byteSize;
        state.report({
          type: 'orphan',
          key: o.key,
          byte_size: o.byteSize,
          last_modified: o.lastModified.toISOString(),
        });
      }
      // Checked again right before deleting: a row may have been committed since the listing.
      // What is deleted is recorded first (account_events, subject the bucket).
      const doomed = options.repair && old.length > 0 ? await unrecordedOf(deps, old) : [];
      if (doomed.length > 0)
        await deps.db.repos.mediaVerify.recordRepair(
          { type: 'bucket', id: deps.bucket },
          'orphans_deleted',
          { actor: deps.actor ?? 'system', at: options.at },
          {
            keys: doomed.map((o) => o.key),
            bytes: doomed.reduce((sum, o) => sum + o.byteSize, 0),
            grace_ms: options.graceMs,
          },
        );
      for (const o of doomed) {
        await deps.storage.delete(deps.bucket, o.key);
        state.repair.orphans_deleted++;
        state.repair.orphan_bytes_deleted += o.byteSize;
      }
      cursor = page.cursor;
    } while (cursor !== null);
  }
}

async function unrecordedOf(deps: MediaVerifyDeps, objects: readonly ListedObject[]): Promise<ListedObject[]> {
  const ours = objects.filter((o) => isOwnStorageKey(o.key));
  const keys = await deps.db.repos.mediaVerify.recordedKeys(
    deps.bucket,
    ours.map((o) => submissionOf(o.key)),
  );
  return ours.filter((o) => !keys.has(o.key));
}
