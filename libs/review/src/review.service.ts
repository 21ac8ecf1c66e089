import type { Readable } from 'node:stream';
import { DomainError, FAILURE_CODES, randomToken, type ReviewerRole } from '@framedesk/domain';
import type { ReviewBatchResult } from '@framedesk/contracts';
import { ALL_CHANNELS, type ChannelScope, type Database, type SubmissionRow } from '@framedesk/db';
import { annotateSpan, withLinkedSpan } from '@framedesk/observability';
import type { ReviewChangePublisher } from '@framedesk/queues';
import {
  type Decision,
  decodeCursor,
  encodeCursor,
  parseFailedFilter,
  parseQueueQuery,
  parseTimelineLimit,
  reasonText,
} from './review-input';
import {
  claimView,
  detailView,
  failedView,
  type MediaUrlFn,
  queueItemView,
  type ViewerMediaUrlFn,
} from './review.views';
import { reviewerStats } from './review-stats';
import { type NearDuplicateSettings, similarityService } from './similarity.service';

export interface QueueDepth {
  readonly waiting: number;
  readonly active: number;
  readonly delayed: number;
  readonly failed: number;
}

/** The slice of the queue producer a retry needs (libs/queues' QueueProducer satisfies it). */
export interface RetryEnqueuer {
  enqueue(
    name: 'image.process' | 'video.process',
    payload: { submissionId: string },
    options: { attempt: string; origin?: { requestId?: string | undefined } },
  ): Promise<void>;
}

/** Reads stored objects (libs/storage's ObjectStorage satisfies it). */
export interface ObjectReader {
  get(bucket: string, key: string): Promise<Readable>;
}

export interface ReviewServiceDeps {
  readonly db: Database;
  readonly storage: ObjectReader;
  /** Media links for the reviewer they are issued to. */
  readonly mediaUrl: ViewerMediaUrlFn;
  readonly queues: RetryEnqueuer;
  readonly queueDepths: () => Promise<Record<string, QueueDepth>>;
  /** How long a claim lasts; the workbench renews it while the reviewer stays on the frame. */
  readonly claimSeconds?: number;
  readonly now?: () => Date;
  /** Announces claims and visibility changes to open workbenches (status changes announce themselves). */
  readonly changes?: ReviewChangePublisher;
  /** Near-duplicate search (threshold, window); defaults to 10 bits and 90 days. */
  readonly nearDuplicates?: NearDuplicateSettings;
  /** Counts decisions by outcome (libs/observability's pipeline metrics). */
  readonly decisions?: { decided(outcome: 'promoted' | 'rejected'): void };
}

/** One frame's answer in a batch decision. */
export type BatchResult = ReviewBatchResult;

export interface Reviewer {
  readonly reviewerId: string;
  readonly email: string;
  readonly role: ReviewerRole;
}

/** What a reviewer may read: every channel (admin), or their channels; applied inside each query. */
export function scopeOf(me: Reviewer): ChannelScope {
  return me.role === 'admin' ? ALL_CHANNELS : { memberOf: me.reviewerId };
}

/** Ops, retries and people are for admins: 403 for anyone else. */
export function assertAdmin(me: Reviewer): void {
  if (me.role !== 'admin') throw new DomainError('forbidden', 'Only an admin may do this.');
}

// Outside the reviewer's channels reads exactly like "does not exist", so existence never leaks.
const notFound = (id: string) => new DomainError('not_found', `No submission ${id}.`);

/** The reviewer's rules: queue, claims, decisions, visibility, timeline, ops and retries. */
export function reviewService(deps: ReviewServiceDeps) {
  const { db } = deps;
  const urlsFor =
    (me: Reviewer): MediaUrlFn =>
    (id, name) =>
      deps.mediaUrl(id, name, me.reviewerId);
  const now = deps.now ?? (() => new Date());
  const claimMs = (deps.claimSeconds ?? 300) * 1000;
  const repo = db.repos.review;
  const actorOf = (me: Reviewer) => ({ type: 'reviewer' as const, id: me.reviewerId });
  const similarity = similarityService({
    db,
    ...(deps.nearDuplicates ? { settings: deps.nearDuplicates } : {}),
  });

  /** The submission when it exists inside the reviewer's channels; 404 otherwise. */
  async function visible(id: string, me: Reviewer) {
    const row = await repo.findInScope(id, scopeOf(me));
    if (!row) throw notFound(id);
    return row;
  }

  async function detail(id: string, me: Reviewer) {
    const row = await repo.detail(id, scopeOf(me));
    if (!row) throw notFound(id);
    const ids = [
      row.claimedBy,
      row.reviewerId,
      ...row.events.map((e) => (e.actorType === 'reviewer' ? e.actorId : null)),
    ];
    const [emails, similar] = await Promise.all([
      repo.reviewerEmails(ids.filter((x): x is string => !!x)),
      similarity.similar(id, scopeOf(me), urlsFor(me)),
    ]);
    return { ...detailView(row, urlsFor(me), me.reviewerId, emails, now()), similar };
  }

  /**
   * A decision is its own trace (the reviewer's request), linked to the trace of the frame it
   * decides when the worker recorded one.
   */
  async function decideOne(id: string, decision: Decision, me: Reviewer): Promise<'promoted' | 'rejected'> {
    const current = await visible(id, me);
    const to = await withLinkedSpan(
      'review.decision',
      [current.traceParent ? { traceparent: current.traceParent } : undefined],
      {
        'framedesk.submission_id': id,
        'framedesk.media_type': current.mediaType,
        'framedesk.decision': decision.decision,
      },
      async () => {
        const outcome = await decideCurrent(current, decision, me);
        annotateSpan({ 'framedesk.outcome': outcome });
        return outcome;
      },
    );
    deps.decisions?.decided(to);
    return to;
  }

  async function decideCurrent(
    current: SubmissionRow,
    decision: Decision,
    me: Reviewer,
  ): Promise<'promoted' | 'rejected'> {
    const at = now();
    const id = current.id;
    if (current.status !== 'needs_review') throw alreadyDecided(current.status);
    if (current.claimedBy && current.claimedBy !== me.reviewerId && current.claimedUntil && current.claimedUntil > at) {
      throw new DomainError('claimed_by_other', 'Another reviewer is reviewing this frame right now.');
    }
    if (decision.decision === 'promote' && current.visibility !== 'promotion_eligible') {
      throw new DomainError(
        'not_promotion_eligible',
        `This frame's visibility is ${current.visibility}; only promotion_eligible frames can be promoted.`,
      );
    }
    const reason = decision.decision === 'reject' ? reasonText(decision) : null;
    const duplicateOf = decision.decision === 'reject' ? decision.duplicateOf : undefined;
    if (duplicateOf) await similarity.assertEarlierFrame(id, duplicateOf, scopeOf(me));
    const to = decision.decision === 'promote' ? 'promoted' : 'rejected';
    const result = await db.transition({
      id,
      to,
      actor: actorOf(me),
      reason,
      onlyFrom: ['needs_review'],
      ...(duplicateOf ? { data: { duplicate_of: duplicateOf } } : {}),
      // A concurrent change to draft between the check above and this write wins.
      ...(to === 'promoted' ? { onlyWithVisibility: 'promotion_eligible' as const } : {}),
      patch: {
        reviewDecision: to,
        reviewReason: reason,
        reviewerId: me.reviewerId,
        reviewedAt: at,
        claimedBy: null,
        claimedUntil: null,
      },
    });
    if (!result.ok) {
      if (result.current === null) throw notFound(id);
      if (result.current === 'needs_review' && to === 'promoted')
        throw new DomainError(
          'not_promotion_eligible',
          'The visibility changed; only promotion_eligible frames can be promoted.',
        );
      throw alreadyDecided(result.current);
    }
    return to;
  }

  return {
    async queue(query: Record<string, unknown>, me: Reviewer) {
      const q = parseQueueQuery(query);
      const rows = await repo.queue({
        scope: scopeOf(me),
        ...(q.channel ? { channelSlug: q.channel } : {}),
        ...(q.agent ? { agentSlug: q.agent } : {}),
        ...(q.mediaType ? { mediaType: q.mediaType } : {}),
        ...(q.dateFrom ? { dateFrom: q.dateFrom } : {}),
        ...(q.dateTo ? { dateTo: q.dateTo } : {}),
        ...(q.cursor ? { after: q.cursor } : {}),
        limit: q.limit + 1,
      });
      const page = rows.slice(0, q.limit);
      const [emails, similarCounts] = await Promise.all([
        repo.reviewerEmails(page.flatMap((r) => (r.claimedBy ? [r.claimedBy] : []))),
        similarity.counts(page.map((r) => r.id)),
      ]);
      const at = now();
      const last = page.at(-1);
      return {
        items: page.map((r) => ({
          ...queueItemView(r, urlsFor(me), me.reviewerId, emails, at),
          similar_count: similarCounts.get(r.id) ?? 0,
        })),
        next_cursor:
          rows.length > q.limit && last ? encodeCursor({ c: last.createdAt.toISOString(), i: last.id }) : null,
      };
    },

    /** The reviewer's own numbers today and the backlog of their channels (or of `channel`). */
    async stats(query: Record<string, unknown>, me: Reviewer) {
      const { channel } = parseQueueQuery({ channel: query['channel'] });
      return reviewerStats(repo, {
        reviewerId: me.reviewerId,
        scope: scopeOf(me),
        ...(channel ? { channel } : {}),
        now: now(),
      });
    },

    async channels(me: Reviewer) {
      const rows = await repo.channelCounts(scopeOf(me));
      return { channels: rows.map((c) => ({ slug: c.slug, name: c.name, needs_review: c.needsReview })) };
    },

    detail,

    /** Marks the frame as being reviewed by `me` for a few minutes; another live claim → 409. */
    async claim(id: string, me: Reviewer) {
      const { channelId } = await visible(id, me);
      const at = now();
      const result = await repo.claim({
        id,
        reviewerId: me.reviewerId,
        until: new Date(at.getTime() + claimMs),
        now: at,
      });
      if (result.ok) {
        await deps.changes?.publish({ kind: 'claim', id, channel: channelId });
        return {
          claim: {
            reviewer_id: me.reviewerId,
            reviewer_email: me.email,
            until: result.claimedUntil.toISOString(),
            mine: true,
          },
        };
      }
      if (result.status === null) throw notFound(id);
      if (result.status !== 'needs_review') {
        throw new DomainError(
          'invalid_transition',
          `This frame is already ${result.status.replace('_', ' ')}; there is nothing left to review.`,
        );
      }
      const emails = await repo.reviewerEmails(result.claimedBy ? [result.claimedBy] : []);
      const holder = claimView(result, me.reviewerId, emails, at);
      throw new DomainError(
        'claimed_by_other',
        `${holder?.reviewer_email ?? 'Another reviewer'} is reviewing this frame until ${holder?.until ?? 'shortly'}.`,
      );
    },

    /** A video's original for the reviewer's player (originals have no public URL). */
    async original(
      id: string,
      me: Reviewer,
    ): Promise<{ contentType: string; byteSize: number; open: () => Promise<Readable> }> {
      const object = await repo.original(id, scopeOf(me));
      if (!object) throw new DomainError('not_found', `No original media for ${id}.`);
      return {
        contentType: object.contentType,
        byteSize: Number(object.byteSize),
        open: () => deps.storage.get(object.bucket, object.key),
      };
    },

    async release(id: string, me: Reviewer) {
      const { channelId } = await visible(id, me);
      await repo.release({ id, reviewerId: me.reviewerId });
      await deps.changes?.publish({ kind: 'claim', id, channel: channelId });
    },

    /** Promote or reject through the status machine; the loser of a race gets a plain 409. */
    async decide(id: string, decision: Decision, me: Reviewer) {
      await decideOne(id, decision, me);
      return detail(id, me);
    },

    /**
     * One decision for several frames, each on its own (claim check and compare-and-set), in order;
     * the answer says per frame whether it was decided or why not.
     */
    async decideBatch(ids: readonly string[], decision: Decision, me: Reviewer): Promise<{ results: BatchResult[] }> {
      const results: BatchResult[] = [];
      for (const id of ids) {
        try {
          results.push({ id, outcome: await decideOne(id, decision, me) });
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          results.push({ id, outcome: 'failed', code: error.code, detail: error.message });
        }
      }
      return { results };
    },

    async setVisibility(id: string, visibility: 'draft' | 'team_visible' | 'promotion_eligible', me: Reviewer) {
      const current = await visible(id, me);
      if (current.visibility !== visibility) {
        const updated = await db.transaction((repos) =>
          repos.submissions.update(
            id,
            { visibility },
            { type: 'visibility_changed', actor: actorOf(me), data: { from: current.visibility, to: visibility } },
            { status: { notIn: ['promoted', 'rejected'] }, visibility: current.visibility },
          ),
        );
        if (!updated)
          throw new DomainError('invalid_transition', 'This frame was decided or changed meanwhile; reload it.');
        await deps.changes?.publish({ kind: 'visibility', id, channel: current.channelId });
      }
      return detail(id, me);
    },

    async timeline(slug: string, query: Record<string, unknown>, me: Reviewer) {
      const channel = await repo.channelInScope(slug, scopeOf(me));
      if (!channel) throw new DomainError('not_found', `No channel ${slug}.`);
      const cursorText = typeof query['cursor'] === 'string' && query['cursor'] ? query['cursor'] : undefined;
      const cursor = cursorText ? decodeCursor(cursorText, ['d', 'r', 'i']) : undefined;
      const limit = parseTimelineLimit(query);
      const rows = await repo.timeline({
        channelId: channel.id,
        ...(cursor ? { after: { date: cursor['d']!, reviewedAt: new Date(cursor['r']!), id: cursor['i']! } } : {}),
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      const at = now();
      return {
        channel: { slug: channel.slug, name: channel.name },
        items: page.map((r) => ({
          ...queueItemView(r, urlsFor(me), '', new Map(), at),
          promoted_at: r.reviewedAt?.toISOString() ?? null,
        })),
        next_cursor:
          rows.length > limit && last
            ? encodeCursor({ d: last.date, r: (last.reviewedAt ?? last.updatedAt).toISOString(), i: last.id })
            : null,
      };
    },

    /** Queue depths, counts by status, and the latest failed frames (filtered by failure code and channel). */
    async ops(query: Record<string, unknown>, me: Reviewer) {
      assertAdmin(me);
      const filter = parseFailedFilter(query);
      const [queues, failed, byStatus] = await Promise.all([
        deps.queueDepths(),
        repo.recentlyFailed(50, filter),
        db.repos.submissions.countByStatus(),
      ]);
      return {
        queues,
        submissions_by_status: byStatus,
        recently_failed: failed.map(failedView),
        failure_codes: [...FAILURE_CODES],
      };
    },

    /**
     * Failed processing re-enters the pipeline at its start, through the status machine, then is
     * enqueued anew (the job carries `requestId`, the retrying request's, into the worker's logs).
     */
    async retry(id: string, me: Reviewer, requestId?: string) {
      assertAdmin(me);
      const current = await db.repos.submissions.findById(id);
      if (!current) throw notFound(id);
      if (current.status !== 'failed')
        throw new DomainError(
          'invalid_transition',
          `Only failed frames can be retried; this one is ${current.status}.`,
        );
      if (current.purgedAt) throw purgedError();
      if (current.failureCode === 'upload_expired') {
        throw new DomainError(
          'invalid_transition',
          'Nothing was ever uploaded for this frame; the agent has to submit it again.',
        );
      }
      const to = current.mediaType === 'image' ? 'received' : 'media_processing';
      const result = await db.transition({
        id,
        to,
        actor: actorOf(me),
        reason: 'retry',
        onlyFrom: ['failed'],
        patch: { failureCode: null, failureMessage: null },
        data: { failure_code: current.failureCode, failure_message: current.failureMessage },
      });
      // A purge marks the frame before it deletes anything: a retry racing it loses here.
      if (!result.ok && result.purged) throw purgedError();
      if (!result.ok) throw new DomainError('invalid_transition', 'Someone else retried this frame first.');
      const attempt = `retry-${randomToken(8)}`;
      await deps.queues.enqueue(
        current.mediaType === 'image' ? 'image.process' : 'video.process',
        { submissionId: id },
        { attempt, origin: { requestId } },
      );
      return { id, status: to };
    },
  };
}

export type ReviewService = ReturnType<typeof reviewService>;

const purgedError = () =>
  new DomainError('media_purged', 'Its media were purged (retention or erasure): there is nothing left to process.');

function alreadyDecided(status: string): DomainError {
  if (status === 'promoted' || status === 'rejected') {
    return new DomainError('invalid_transition', `Another reviewer decided this frame first: it is already ${status}.`);
  }
  return new DomainError('invalid_transition', `This frame is ${status.replace('_', ' ')}, not waiting for review.`);
}
