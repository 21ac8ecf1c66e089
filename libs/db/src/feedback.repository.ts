// Review feedback: reviewers' internal notes on a frame and each channel's reject reasons.
import { Prisma } from './generated/prisma/client.ts';
import { type AccountChange, recordAccountEvent } from './accounts.repository';
import type { DbClient } from './prisma';
import type { SubmissionWithMedia } from './review.repository';
import type { ReviewMoment } from './submission-rows';

/** At most this many versions each way from a frame: back along revision_of, and forward (all branches). */
const MAX_VERSIONS = 50;

export interface ReviewNoteRow {
  readonly id: string;
  readonly submissionId: string;
  readonly reviewerId: string;
  readonly reviewerEmail: string;
  readonly body: string;
  /** A video's time-coded items the note points at (empty when none). */
  readonly moments: readonly ReviewMoment[];
  readonly createdAt: Date;
}

export function feedbackRepository(db: DbClient) {
  const noteRow = (n: {
    id: bigint;
    submissionId: string;
    reviewerId: string;
    body: string;
    moments: unknown;
    createdAt: Date;
    reviewer: { email: string };
  }): ReviewNoteRow => ({
    id: String(n.id),
    submissionId: n.submissionId,
    reviewerId: n.reviewerId,
    reviewerEmail: n.reviewer.email,
    body: n.body,
    moments: Array.isArray(n.moments) ? (n.moments as ReviewMoment[]) : [],
    createdAt: n.createdAt,
  });
  /** The channel's own reject reasons, or null when it uses the default list. */
  async function rejectReasons(channelId: string): Promise<string[] | null> {
    const channel = await db.channel.findUnique({ where: { id: channelId }, select: { rejectReasons: true } });
    return stringList(channel?.rejectReasons);
  }

  return {
    async addNote(input: {
      submissionId: string;
      reviewerId: string;
      body: string;
      moments?: readonly ReviewMoment[];
    }): Promise<ReviewNoteRow> {
      const { moments, ...fields } = input;
      const data = moments && moments.length > 0 ? { ...fields, moments: moments as object[] } : fields;
      const note = await db.reviewNote.create({ data, include: { reviewer: { select: { email: true } } } });
      return noteRow(note);
    },

    /** A frame's internal notes, oldest first. */
    async notes(submissionId: string): Promise<ReviewNoteRow[]> {
      const notes = await db.reviewNote.findMany({
        where: { submissionId },
        orderBy: { id: 'asc' },
        include: { reviewer: { select: { email: true } } },
      });
      return notes.map(noteRow);
    },

    rejectReasons,

    /**
     * A frame's version stack: the frames it revises (following revision_of back) and those that
     * revise it (forward), itself included, oldest first; at most MAX_VERSIONS each way (forward
     * counts every branch: a frame revised several times).
     */
    /**
     * How many frames revise `id` (counted up to `atMost`), its row locked first (FOR NO KEY UPDATE,
     * to the end of the transaction), so that two revisions created at once count each other.
     */
    async lockedRevisionCount(id: string, atMost: number): Promise<number> {
      await db.$queryRaw`SELECT id FROM submissions WHERE id = ${id} FOR NO KEY UPDATE`;
      const [row] = await db.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM (SELECT 1 FROM submissions WHERE revision_of = ${id} LIMIT ${atMost}) r`;
      return row?.n ?? 0;
    },

    async versions(id: string): Promise<SubmissionWithMedia[]> {
      const rows = await db.$queryRaw<{ id: string }[]>(Prisma.sql`
        WITH RECURSIVE back AS (
          SELECT id, revision_of, 0 AS depth FROM submissions WHERE id = ${id}
          UNION ALL
          SELECT s.id, s.revision_of, b.depth + 1 FROM submissions s JOIN back b ON s.id = b.revision_of
          WHERE b.depth < ${MAX_VERSIONS}
        ), forth AS (
          SELECT id, 0 AS depth FROM submissions WHERE id = ${id}
          UNION ALL
          SELECT s.id, f.depth + 1 FROM submissions s JOIN forth f ON s.revision_of = f.id
          WHERE f.depth < ${MAX_VERSIONS}
        )
        -- PostgreSQL evaluates a recursive query only as far as its reader fetches: the LIMIT ends the
        -- walk forward however many revisions each frame has.
        (SELECT id FROM back) UNION (SELECT id FROM forth LIMIT ${MAX_VERSIONS + 1})`);
      if (rows.length < 2) return [];
      return db.submission.findMany({
        where: { id: { in: rows.map((r) => r.id) } },
        include: {
          agent: { select: { slug: true } },
          channel: { select: { slug: true } },
          media: { orderBy: [{ kind: 'asc' }, { name: 'asc' }] },
        },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      });
    },

    /** The own reject reasons of several channels by slug (null: the default list). */
    async rejectReasonsBySlug(slugs: readonly string[]): Promise<Map<string, string[] | null>> {
      const rows = await db.channel.findMany({
        where: { slug: { in: [...slugs] } },
        select: { slug: true, rejectReasons: true },
      });
      return new Map(rows.map((r) => [r.slug, stringList(r.rejectReasons)]));
    },

    /**
     * Sets the channel's reject reasons (null: back to the default list) and records who did it in
     * account_events (`reject_reasons_set`, before and after). Run in a transaction.
     */
    async setRejectReasons(channelId: string, reasons: readonly string[] | null, who: AccountChange): Promise<void> {
      const before = await rejectReasons(channelId);
      await db.channel.update({
        where: { id: channelId },
        data: { rejectReasons: reasons === null ? Prisma.DbNull : [...reasons] },
      });
      await recordAccountEvent(db, { type: 'channel', id: channelId }, 'reject_reasons_set', who, {
        before,
        after: reasons === null ? null : [...reasons],
      });
    },
  };
}

const stringList = (list: unknown): string[] | null =>
  Array.isArray(list) && list.every((r) => typeof r === 'string') ? (list as string[]) : null;
