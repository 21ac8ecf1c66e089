import type { Database, ErasureCounts, ErasureFilter, MediaHolder } from '@framedesk/db';
import { DomainError, isTerminal } from '@framedesk/domain';
import { addDeleted, type DeletedMedia, deleteStoredMedia, type MediaDeletionDeps } from './media-purge';

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
  readonly now?: () => Date;
}

export interface ErasureReport extends ErasureCounts {
  /** Frames still in the pipeline or waiting for review, failed first (`erased`) so no worker brings media back. */
  readonly stopped: number;
  readonly providerSkipped: number;
}

/**
 * Erasure requests (GDPR art. 17): deletes the media of everything the request covers at once
 * and blanks the fields that may hold personal data (title, caption, click zones, the upload's
 * file name), keeping each row as a tombstone (id, status, slugs, dates, review record). Every
 * request is recorded in account_events with who, when, what and how many; each frame gets an
 * `erased` event. A request interrupted half-way is finished by running it again.
 */
export function erasureService(deps: ErasureDeps) {
  const now = deps.now ?? (() => new Date());
  const batchSize = deps.batchSize ?? 100;

  async function resolve(
    request: ErasureRequest,
  ): Promise<{ filter: ErasureFilter; describe: Record<string, string> }> {
    if ('submissionId' in request) {
      if (!(await deps.db.repos.submissions.findById(request.submissionId)))
        throw new DomainError('not_found', `no submission ${request.submissionId}`);
      return { filter: { submissionId: request.submissionId }, describe: { submission: request.submissionId } };
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
    };
  }

  /** A frame still moving is failed first, so a worker finishing it cannot store media again. */
  async function stopPipeline(holders: readonly MediaHolder[]): Promise<number> {
    let stopped = 0;
    for (const holder of holders.filter((h) => !isTerminal(h.status))) {
      const result = await deps.db.transition({
        id: holder.id,
        to: 'failed',
        actor: { type: 'system' },
        reason: 'erased',
        patch: { failureCode: 'erased', failureMessage: 'Erased on request before it was processed or reviewed.' },
      });
      if (result.ok) stopped++;
    }
    return stopped;
  }

  return {
    /** What `erase` would remove now; changes nothing (`--dry-run`). */
    async count(request: ErasureRequest): Promise<ErasureCounts> {
      return deps.db.repos.erasure.count((await resolve(request)).filter);
    },

    async erase(request: ErasureRequest): Promise<ErasureReport> {
      const { filter, describe } = await resolve(request);
      let total: DeletedMedia = { objects: 0, bytes: 0, providerVideos: 0, providerSkipped: 0 };
      let submissions = 0;
      let stopped = 0;
      let after: { createdAt: Date; id: string } | undefined;
      for (;;) {
        const holders = await deps.db.repos.erasure.candidates(filter, batchSize, after);
        if (holders.length === 0) break;
        stopped += await stopPipeline(holders);
        const deleted = await deleteStoredMedia(deps, holders);
        const at = now();
        const erased = await deps.db.transaction((repos) =>
          repos.erasure.markErased(
            holders.map((h) => h.id),
            {
              at,
              actor: { type: 'system', id: deps.actor },
              data: (id) => ({ ...deleted.get(id) }),
              replayableSince: new Date(at.getTime() - (deps.replayableHours + 1) * 3_600_000),
            },
          ),
        );
        for (const id of erased) total = addDeleted(total, deleted.get(id)!);
        submissions += erased.length;
        const last = holders.at(-1)!;
        after = { createdAt: last.createdAt, id: last.id };
      }
      const report = { submissions, ...total, stopped };
      const subject =
        'submissionId' in filter
          ? { type: 'submission' as const, id: filter.submissionId }
          : { type: 'agent' as const, id: filter.agentId };
      await deps.db.repos.erasure.record(
        subject,
        { actor: deps.actor, at: now() },
        {
          request: describe,
          submissions: report.submissions,
          objects: report.objects,
          bytes: report.bytes,
          provider_videos: report.providerVideos,
          provider_skipped: report.providerSkipped,
          stopped: report.stopped,
        },
      );
      return report;
    },
  };
}

export type ErasureService = ReturnType<typeof erasureService>;
