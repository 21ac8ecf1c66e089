import type { Readable } from 'node:stream';
import { DomainError } from '@framedesk/domain';
import { decodeCursor, encodeCursor, parseQueueQuery, parseTimelineLimit, REJECT_REASONS } from '../review-input';
import { detailView, queueItemView, versionView } from '../review.views';
import { reviewerStats } from '../review-stats';
import { type ByteRange, notFound, type Reviewer, type ReviewContext, scopeOf } from './context';
import { internalNoteView } from './feedback';
import { rejectReasonsOf } from '../channel-reasons';

/** What a reviewer reads: the queue, one frame's detail, their numbers, channels and timelines. */
export function reviewReads(ctx: ReviewContext) {
  const { repo, urlsFor, now, similarity } = ctx;

  async function detail(id: string, me: Reviewer) {
    const row = await repo.detail(id, scopeOf(me));
    if (!row) throw notFound(id);
    const ids = [
      row.claimedBy,
      row.reviewerId,
      ...row.events.map((e) => (e.actorType === 'reviewer' ? e.actorId : null)),
    ];
    const [emails, similar, notes, reasons, versions] = await Promise.all([
      repo.reviewerEmails(ids.filter((x): x is string => !!x)),
      similarity.similar(id, scopeOf(me), urlsFor(me)),
      ctx.db.repos.feedback.notes(id),
      rejectReasonsOf(ctx.db, row.channelId),
      ctx.db.repos.feedback.versions(id),
    ]);
    return {
      ...detailView(row, urlsFor(me), me.reviewerId, emails, now()),
      similar,
      internal_notes: notes.map(internalNoteView),
      reject_reasons: [...reasons],
      revision_of: row.revisionOf ?? null,
      // Revisions stay in their channel, so the frame's scope covers them.
      versions: versions.map((v) => versionView(v, urlsFor(me), id)),
    };
  }

  return {
    detail,

    async queue(query: Record<string, unknown>, me: Reviewer) {
      const q = parseQueueQuery(query);
      // A page may be a moment stale (a replica); a frame decided meanwhile never comes back.
      const rows = await ctx.db.readRepos().review.queue({
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
          rows.length > q.limit && last
            ? encodeCursor({
                c: last.createdAt.toISOString(),
                i: last.id,
                u: last.dueAt?.toISOString() ?? '',
                p: String(last.reviewPriority ?? 0),
              })
            : null,
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
      const own = await ctx.db.repos.feedback.rejectReasonsBySlug(rows.map((c) => c.slug));
      return {
        channels: rows.map((c) => ({
          slug: c.slug,
          name: c.name,
          needs_review: c.needsReview,
          reject_reasons: [...(own.get(c.slug) ?? REJECT_REASONS)],
        })),
      };
    },

    /** A video's original for the reviewer's player (originals have no public URL). */
    async original(
      id: string,
      me: Reviewer,
    ): Promise<{ contentType: string; byteSize: number; open: (range?: ByteRange) => Promise<Readable> }> {
      const object = await repo.original(id, scopeOf(me));
      if (!object) throw new DomainError('not_found', `No original media for ${id}.`);
      return {
        contentType: object.contentType,
        byteSize: Number(object.byteSize),
        open: (range) => ctx.deps.storage.get(object.bucket, object.key, range ? { range } : undefined),
      };
    },

    async timeline(slug: string, query: Record<string, unknown>, me: Reviewer) {
      const channel = await repo.channelInScope(slug, scopeOf(me));
      if (!channel) throw new DomainError('not_found', `No channel ${slug}.`);
      const cursorText = typeof query['cursor'] === 'string' && query['cursor'] ? query['cursor'] : undefined;
      const cursor = cursorText ? decodeCursor(cursorText, ['d', 'r', 'i']) : undefined;
      const limit = parseTimelineLimit(query);
      const rows = await ctx.db.readRepos().review.timeline({
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
  };
}
