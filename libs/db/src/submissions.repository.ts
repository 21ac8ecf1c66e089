import {
  type ActorType,
  type FailureCode,
  type MediaType,
  sourcesOf,
  type SubmissionStatus,
  type Visibility,
} from '@framedesk/domain';
import type { DbClient, Prisma } from './prisma';
import { type ResourceListQuery, submissionResources } from './submission-resources';

import type { SubmissionRow, SubmissionWithSlugs } from './submission-rows';

export type { SubmissionRow, SubmissionWithSlugs };

export interface Actor {
  readonly type: ActorType;
  readonly id?: string | null;
}

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
}

/** Fields a transition may set together with the status. */
export interface TransitionPatch {
  readonly failureCode?: FailureCode | null;
  readonly failureMessage?: string | null;
  readonly reviewDecision?: 'promoted' | 'rejected' | null;
  readonly reviewReason?: string | null;
  readonly reviewerId?: string | null;
  readonly reviewedAt?: Date | null;
  readonly claimedBy?: string | null;
  readonly claimedUntil?: Date | null;
  readonly width?: number | null;
  readonly height?: number | null;
  readonly durationMs?: number | null;
}

export interface TransitionRequest {
  readonly id: string;
  readonly to: SubmissionStatus;
  readonly actor: Actor;
  readonly reason?: string | null;
  /** Narrows the allowed sources further than the status machine does. */
  readonly onlyFrom?: readonly SubmissionStatus[];
  /** Applies only while the visibility is still this one (part of the compare-and-set). */
  readonly onlyWithVisibility?: Visibility;
  readonly patch?: TransitionPatch;
  readonly data?: Record<string, unknown>;
}

export type TransitionResult =
  | { readonly ok: true; readonly from: SubmissionStatus; readonly submission: SubmissionRow }
  | { readonly ok: false; readonly current: SubmissionStatus | null };

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
     * Compare-and-set through the status machine: the row changes only if its status is one the
     * machine allows `actor` to leave for `to`, and is still the status we read. One event row
     * records each change. The loser of a race gets `{ ok: false }`. Call it inside a transaction
     * (`Database.transition` does) so the status never changes without its event.
     */
    async transition(request: TransitionRequest): Promise<TransitionResult> {
      const current = await db.submission.findUnique({ where: { id: request.id }, select: { status: true } });
      if (!current) return { ok: false, current: null };
      const allowed = sourcesOf(request.to, request.actor.type).filter(
        (s) => !request.onlyFrom || request.onlyFrom.includes(s),
      );
      if (!allowed.includes(current.status)) return { ok: false, current: current.status };
      const { count } = await db.submission.updateMany({
        where: {
          id: request.id,
          status: current.status,
          ...(request.onlyWithVisibility ? { visibility: request.onlyWithVisibility } : {}),
        },
        data: { status: request.to, ...request.patch },
      });
      if (count === 0) {
        const now = await db.submission.findUnique({ where: { id: request.id }, select: { status: true } });
        return { ok: false, current: now?.status ?? null };
      }
      await events.append({
        submissionId: request.id,
        type: 'transition',
        from: current.status,
        to: request.to,
        actor: request.actor,
        reason: request.reason ?? null,
        data: request.data,
      });
      const submission = await db.submission.findUniqueOrThrow({ where: { id: request.id } });
      return { ok: true, from: current.status, submission };
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
