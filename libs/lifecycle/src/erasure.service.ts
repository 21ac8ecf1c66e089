import type { Database, ErasureAction, ErasureCounts, ErasureFilter, MediaHolder } from '@framedesk/db';
import { DomainError, isTerminal } from '@framedesk/domain';
import { addDeleted, type DeletedMedia, deleteStoredMedia, type MediaDeletionDeps, NO_MEDIA } from './media-purge';

/** An erasure request as operators give it (slugs), before it is resolved to ids. */
export type ErasureRequest =
  | { readonly submissionId: string }
  | { readonly agentSlug: string; readonly channelSlug?: string; readonly before?: Date };

export interface ErasureDeps extends MediaDeletionDeps {
  readonly db: Database;
  /** Who asked: recorded with every erasure (`cli:<login>`). */
  readonly actor: string;
  readonly batchSize?: number;
  /** How long idempotent responses can be replayed (IDEMPOTENCY_RETENTION_HOURS): newer frames have one to drop. */
  readonly replayableHours: number;
  /** Drops the partial file of an open resumable (tus) upload (`storage`'s tus store). */
  readonly dropPartial?: (uploadId: string) => Promise<void>;
  readonly now?: () => Date;
}

export interface ErasureReport extends ErasureCounts {
  /** Frames still in the pipeline or waiting for review, failed first (`erased`) so no worker brings media back. */
  readonly stopped: number;
  readonly providerSkipped: number;
  /**
   * Frames whose provider copy could not be deleted yet (refused, or made with another provider):
   * marked pending, retried by every retention run until it is gone; `doctor` shows them.
   */
  readonly pending: number;
  /** Open resumable uploads whose partial file was dropped. */
  readonly partials: number;
}

/**
 * Erasure requests (GDPR art. 17): deletes the media of everything the request covers at once
 * and blanks the fields that may hold personal data (title, caption, click zones, file names),
 * keeping each row as a tombstone (id, status, slugs, dates, review record). The request is
 * recorded in account_events before anything changes (`media_erasure_requested`), after each
 * batch (`media_erasure_progress`) and when done (`media_erased`), with who, what and how many;
 * each frame gets an `erased` event. Per batch: frames still moving are failed first (naming
 * the operator), then marked erased — from then on no worker commits media for them — and only
 * then is what they hold read and deleted, the provider's copy and an open upload's partial
 * file included. A provider copy that cannot be deleted leaves its frame pending, retried by the
 * retention job. A request interrupted half-way is finished by running it again (and the
 * retention job finishes the deletions of frames already marked).
 */
export function erasureService(deps: ErasureDeps) {
  const now = deps.now ?? (() => new Date());
  const batchSize = deps.batchSize ?? 100;

  async function resolve(request: ErasureRequest): Promise<{
    filter: ErasureFilter;
    describe: Record<string, string>;
    subject: { type: 'agent' | 'submission'; id: string };
  }> {
    if ('submissionId' in request) {
      if (!(await deps.db.repos.submissions.findById(request.submissionId)))
        throw new DomainError('not_found', `no submission ${request.submissionId}`);
      return {
        filter: { submissionId: request.submissionId },
        describe: { submission: request.submissionId },
        subject: { type: 'submission', id: request.submissionId },
      };
    }
    const agent = await deps.db.repos.agents.findBySlug(request.agentSlug);
    if (!agent) throw new DomainError('not_found', `no agent ${request.agentSlug}`);
    const channel = request.channelSlug ? await deps.db.repos.channels.findBySlug(request.channelSlug) : null;
    if (request.channelSlug && !channel) throw new DomainError('not_found', `no channel ${request.channelSlug}`);
    return {
      filter: {
        agentId: agent.id,
        ...(channel ? { channelId: channel.id } : {}),
        ...(request.before ? { before: request.before } : {}),
      },
      describe: {
        agent: agent.slug,
        ...(channel ? { channel: channel.slug } : {}),
        ...(request.before ? { before: request.before.toISOString() } : {}),
      },
      subject: { type: 'agent', id: agent.id },
    };
  }

  /** A frame still moving is failed first, in the operator's name, so a worker finishing it cannot store media again. */
  async function stopPipeline(holders: readonly MediaHolder[]): Promise<number> {
    let stopped = 0;
    for (const holder of holders.filter((h) => !isTerminal(h.status))) {
      const result = await deps.db.transition({
        id: holder.id,
        to: 'failed',
        actor: { type: 'system', id: deps.actor },
        reason: 'erased',
        patch: {
          failureCode: 'erased',
          failureMessage: `Erased on request by ${deps.actor} before it was processed or reviewed.`,
        },
        data: { operator: deps.actor },
      });
      if (result.ok) stopped++;
    }
    return stopped;
  }

  /** The partial files of open resumable uploads (nothing else holds their bytes). */
  async function dropPartials(holders: readonly MediaHolder[]): Promise<number> {
    let dropped = 0;
    for (const { upload } of holders)
      if (deps.dropPartial && upload?.protocol === 'tus' && upload.provider === 'local' && !upload.completedAt) {
        await deps.dropPartial(upload.id);
        dropped++;
      }
    return dropped;
  }

  return {
    /** What `erase` would remove now; changes nothing (`--dry-run`). */
    async count(request: ErasureRequest): Promise<ErasureCounts> {
      return deps.db.repos.erasure.count((await resolve(request)).filter);
    },

    async erase(request: ErasureRequest): Promise<ErasureReport> {
      const { filter, describe, subject } = await resolve(request);
      const record = (action: ErasureAction, data: Record<string, unknown>) =>
        deps.db.repos.erasure.record(subject, action, { actor: deps.actor, at: now() }, { request: describe, ...data });
      await record('media_erasure_requested', {});
      let total: DeletedMedia = NO_MEDIA;
      let submissions = 0;
      let stopped = 0;
      let pending = 0;
      let partials = 0;
      let batches = 0;
      let after: { createdAt: Date; id: string } | undefined;
      const counts = () => ({
        submissions,
        objects: total.objects,
        bytes: total.bytes,
        provider_videos: total.providerVideos,
        provider_skipped: total.providerSkipped,
        provider_pending: pending,
        partials,
        stopped,
      });
      for (;;) {
        const candidates = await deps.db.repos.erasure.candidates(filter, batchSize, after);
        if (candidates.length === 0) break;
        stopped += await stopPipeline(candidates);
        const at = now();
        const marked = await deps.db.transaction((repos) =>
          repos.erasure.markErased(
            candidates.map((h) => h.id),
            {
              at,
              actor: { type: 'system', id: deps.actor },
              replayableSince: new Date(at.getTime() - (deps.replayableHours + 1) * 3_600_000),
            },
          ),
        );
        const { deleted, failures } = await deleteStoredMedia(deps, marked);
        partials += await dropPartials(marked);
        await deps.db.transaction((repos) =>
          repos.retention.finishDeletion(
            marked.map((h) => h.id),
            failures,
          ),
        );
        for (const part of deleted.values()) total = addDeleted(total, part);
        submissions += marked.length;
        pending += failures.size;
        const last = candidates.at(-1)!;
        after = { createdAt: last.createdAt, id: last.id };
        await record('media_erasure_progress', { batch: ++batches, ...counts() });
      }
      await record('media_erased', counts());
      return { submissions, ...total, stopped, pending, partials };
    },
  };
}

export type ErasureService = ReturnType<typeof erasureService>;
