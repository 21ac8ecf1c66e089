import { type MediaType, sourcesOf, type SubmissionStatus, type Visibility } from '@framedesk/domain';
import type { DbClient, Prisma } from './prisma';
import {
  type Actor,
  type StoredOriginal,
  type TransitionPatch,
  type TransitionRequest,
  type TransitionResult,
  type TransitionRow,
  transitionedRow,
  transitionSql,
  IN_PROCESSING,
} from './transition-sql';
import { type ResourceListQuery, submissionResources } from './submission-resources';

import type { ReviewMoment, ReviewRegion, SubmissionRow, SubmissionWithSlugs } from './submission-rows';

export type { ReviewMoment, ReviewRegion, SubmissionRow, SubmissionWithSlugs };
export type { Actor, StoredOriginal, TransitionPatch, TransitionRequest, TransitionResult };

export interface NewSubmission {
  readonly id: string;
  readonly status: 'received' | 'waiting_for_upload';
  readonly mediaType: MediaType;
  readonly agentId: string;
  readonly channelId: string;
  readonly date: string;
  readonly metadata: Record<string, unknown>;
  readonly title?: string | null;
  readonly visibility: Visibility;
  /** The earlier frame this one revises (`metadata.revision_of`, checked by the caller). */
  readonly revisionOf?: string | null;
}

const withSlugs = { agent: { select: { slug: true } }, channel: { select: { slug: true } } } as const;

export function submissionsRepository(db: DbClient) {
  const resources = submissionResources(db);
  const events = {
    append: (input: {
      submissionId: string;
      type: string;
      from?: SubmissionStatus | null;
      to?: SubmissionStatus | null;
      actor: Actor;
      reason?: string | null;
      data?: Record<string, unknown>;
    }) =>
      db.submissionEvent.create({
        data: {
          submissionId: input.submissionId,
          type: input.type,
          fromStatus: input.from ?? null,
          toStatus: input.to ?? null,
          actorType: input.actor.type,
          actorId: input.actor.id ?? null,
          reason: input.reason ?? null,
          data: (input.data ?? undefined) as Prisma.InputJsonValue | undefined,
        },
      }),
  };

  return {
    /** Inserts the submission and its first event. Run inside a transaction. */
    async create(input: NewSubmission, actor: Actor): Promise<SubmissionWithSlugs> {
      const row = await db.submission.create({
        data: { ...input, metadata: input.metadata as Prisma.InputJsonValue, title: input.title ?? null },
        include: withSlugs,
      });
      await events.append({ submissionId: row.id, type: 'transition', from: null, to: input.status, actor });
      return row;
    },

    findById: (id: string): Promise<SubmissionWithSlugs | null> =>
      db.submission.findUnique({ where: { id }, include: withSlugs }),

    /** Which of `ids` wait for review now (primary keys only: a check of a replica's page). */
    stillInReview: async (ids: readonly string[]): Promise<Set<string>> => {
      if (ids.length === 0) return new Set();
      const rows = await db.submission.findMany({
        where: { id: { in: [...ids] }, status: 'needs_review' },
        select: { id: true },
      });
      return new Set(rows.map((r) => r.id));
    },

    /** Another agent's submission is indistinguishable from a missing one. */
    findForAgent: (id: string, agentId: string): Promise<SubmissionWithSlugs | null> =>
      db.submission.findFirst({ where: { id, agentId }, include: withSlugs }),

    /** An agent's own submissions, newest first, keyset-paginated on (created_at, id). */
    listForAgent(input: {
      agentId: string;
      channelId?: string;
      status?: SubmissionStatus;
      after?: { createdAt: Date; id: string };
      limit: number;
    }): Promise<SubmissionWithSlugs[]> {
      const { after } = input;
      return db.submission.findMany({
        where: {
          agentId: input.agentId,
          ...(input.channelId ? { channelId: input.channelId } : {}),
          ...(input.status ? { status: input.status } : {}),
          ...(after
            ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }
            : {}),
        },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: input.limit,
        include: withSlugs,
      });
    },

    /**
     * Compare-and-set through the status machine, in one statement (its own transaction, or part
     * of the caller's): the row is locked, and changes only if its status is one the machine
     * allows `actor` to leave for `to` (and `onlyFrom`, `onlyWithVisibility`, `onlyMediaType`
     * allow); the event row is written by the same statement, so the status never changes
     * without it. The loser of a race gets `{ ok: false, current }` with the status it found.
     */
    async transition(request: TransitionRequest): Promise<TransitionResult> {
      const allowed = sourcesOf(request.to, request.actor.type).filter(
        (s) => !request.onlyFrom || request.onlyFrom.includes(s),
      );
      const rows = await db.$queryRaw<TransitionRow[]>(transitionSql(request, allowed, new Date()));
      const row = rows[0];
      if (!row) return { ok: false, current: null };
      if (!row.moved)
        return {
          ok: false,
          current: row.current,
          ...(request.onlyMediaType ? { mediaType: row.current_media_type } : {}),
          ...(row.current_purged ? { purged: true } : {}),
        };
      const submission = transitionedRow(row.moved);
      return {
        ok: true,
        from: row.current,
        submission,
        ...(request.withOriginal ? { original: row.original ?? null } : {}),
      };
    },

    /** Changes fields that are not the status (visibility, claims), with an event. */
    async update(
      id: string,
      change: { visibility?: Visibility; claimedBy?: string | null; claimedUntil?: Date | null },
      event: { type: string; actor: Actor; reason?: string | null; data?: Record<string, unknown> },
      where: Prisma.SubmissionWhereInput = {},
    ): Promise<SubmissionRow | null> {
      const { count } = await db.submission.updateMany({ where: { ...where, id }, data: change });
      if (count === 0) return null;
      await events.append({ submissionId: id, ...event });
      return db.submission.findUnique({ where: { id } });
    },

    appendEvent: events.append,

    events: (submissionId: string) => db.submissionEvent.findMany({ where: { submissionId }, orderBy: { id: 'asc' } }),

    /** Non-terminal submissions nobody has touched since `before` (the reconciler's work list). */
    findStale: (statuses: readonly SubmissionStatus[], before: Date, limit: number) =>
      db.submission.findMany({
        where: { status: { in: [...statuses] }, updatedAt: { lt: before } },
        orderBy: { updatedAt: 'asc' },
        take: limit,
        select: { id: true, status: true, mediaType: true, updatedAt: true },
      }),

    /** Marks a submission as seen by the pipeline without changing it (resets the reconciler clock). */
    async touch(id: string): Promise<void> {
      await db.submission.updateMany({ where: { id }, data: { updatedAt: new Date() } });
    },

    /**
     * Counts a run of its processing that ended with its worker (taken over by a stalled check),
     * while it is still in the pipeline; returns the count, or null when it has left the pipeline.
     */
    async recordCrash(id: string): Promise<number | null> {
      const rows = await db.$queryRaw<{ crash_count: number }[]>`
        UPDATE submissions SET crash_count = crash_count + 1
        WHERE id = ${id} AND status IN ${IN_PROCESSING}
        RETURNING crash_count`;
      return rows[0]?.crash_count ?? null;
    },

    /** Starts the crash count again (a frame failed `processing_crashed`: an operator's retry gets a full count). */
    async resetCrashes(id: string): Promise<void> {
      await db.$executeRaw`UPDATE submissions SET crash_count = 0 WHERE id = ${id}`;
    },

    /**
     * Remembers the frame's trace the first time a job of it runs traced (a retry keeps the
     * first). Not a change of the submission: `updated_at` stays as it is.
     */
    async recordTraceParent(id: string, traceParent: string): Promise<void> {
      await db.$executeRaw`UPDATE submissions SET trace_parent = ${traceParent} WHERE id = ${id} AND trace_parent IS NULL`;
    },

    countByStatus: async (): Promise<Record<string, number>> => {
      const rows = await db.submission.groupBy({ by: ['status'], _count: { _all: true } });
      return Object.fromEntries(rows.map((r) => [r.status, r._count._all]));
    },

    /** Upload sessions still waiting for their media at `now`, past `expires_at`. */
    findExpiredUploads: (now: Date, limit: number) =>
      db.mediaUpload.findMany({
        where: { expiresAt: { lte: now }, submission: { status: 'waiting_for_upload' } },
        orderBy: { expiresAt: 'asc' },
        take: limit,
        select: { id: true, submissionId: true, expiresAt: true },
      }),

    /** The agent API resource of one submission (one statement). Another agent's is null. */
    findResourceForAgent: (id: string, agentId: string) => resources.findForAgent(id, agentId),

    /** An agent's own submissions as API resources, newest first (one statement). */
    listResourcesForAgent: (query: ResourceListQuery) => resources.listForAgent(query),
  };
}
