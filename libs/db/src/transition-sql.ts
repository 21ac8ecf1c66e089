// A status transition as one statement: lock the row, compare-and-set the status (with the
// fields that change with it), write its event, and return the row as it now reads. One round
// trip and, outside a caller's transaction, one PostgreSQL transaction (docs/performance.md).
import {
  type ActorType,
  type FailureCode,
  type MediaType,
  PROCESSING_STATUSES,
  type SubmissionStatus,
  type Visibility,
} from '@framedesk/domain';
import { Prisma } from './generated/prisma/client.ts';
import type { ReviewMoment, ReviewRegion, SubmissionWithSlugs } from './submission-rows';

/** `(…)` of PROCESSING_STATUSES, for `status IN ${IN_PROCESSING}` (constants: the plan stays as written). */
export const IN_PROCESSING = Prisma.raw(`(${PROCESSING_STATUSES.map((status) => `'${status}'`).join(', ')})`);

export interface Actor {
  readonly type: ActorType;
  readonly id?: string | null;
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
  readonly reviewNote?: string | null;
  /** Stored as jsonb: [{x, y, width, height, label}]. */
  readonly reviewRegions?: readonly ReviewRegion[] | null;
  /** A video rejection's time-coded items (jsonb, as the review API shows them). */
  readonly reviewMoments?: readonly ReviewMoment[] | null;
  readonly reviewRule?: string | null;
  readonly reviewPriority?: number;
  readonly dueAt?: Date | null;
  readonly approvalsRequired?: number;
  /** Stored as jsonb: what a review policy did or suggested and the values it read. */
  readonly policyOutcome?: Record<string, unknown> | null;
  /** Stored as jsonb: the signals measured for a review policy, kept for `policy simulate`. */
  readonly signals?: Record<string, unknown> | null;
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
  /** Applies only to a submission of this media type (part of the compare-and-set). */
  readonly onlyMediaType?: MediaType;
  /** Also returns the original's storage location (the image pipeline reads it next). */
  readonly withOriginal?: boolean;
  readonly patch?: TransitionPatch;
  readonly data?: Record<string, unknown>;
}

/** Where an original is stored (`withOriginal`); null when it has no original row. */
export interface StoredOriginal {
  readonly bucket: string;
  readonly key: string;
}

export type TransitionResult =
  | {
      readonly ok: true;
      readonly from: SubmissionStatus;
      readonly submission: SubmissionWithSlugs;
      readonly original?: StoredOriginal | null;
    }
  | {
      readonly ok: false;
      readonly current: SubmissionStatus | null;
      /** With `onlyMediaType`: the media type found. */
      readonly mediaType?: MediaType;
      /** Its media were purged (retention, erasure): a purged frame's status never changes again. */
      readonly purged?: boolean;
    };

/** Column and SQL type of each patchable field. */
const PATCH_COLUMNS: { readonly [K in keyof TransitionPatch]-?: readonly [column: string, type: string] } = {
  failureCode: ['failure_code', 'text'],
  failureMessage: ['failure_message', 'text'],
  reviewDecision: ['review_decision', '"ReviewDecision"'],
  reviewReason: ['review_reason', 'text'],
  reviewerId: ['reviewer_id', 'text'],
  reviewedAt: ['reviewed_at', 'timestamptz'],
  claimedBy: ['claimed_by', 'text'],
  claimedUntil: ['claimed_until', 'timestamptz'],
  width: ['width', 'int'],
  height: ['height', 'int'],
  durationMs: ['duration_ms', 'int'],
  reviewNote: ['review_note', 'text'],
  reviewRegions: ['review_regions', 'jsonb'],
  reviewMoments: ['review_moments', 'jsonb'],
  reviewRule: ['review_rule', 'text'],
  reviewPriority: ['review_priority', 'int'],
  dueAt: ['due_at', 'timestamptz'],
  approvalsRequired: ['approvals_required', 'int'],
  policyOutcome: ['policy_outcome', 'jsonb'],
  signals: ['signals', 'jsonb'],
};

/** jsonb fields are sent as their JSON text. */
const JSON_FIELDS: ReadonlySet<keyof TransitionPatch> = new Set([
  'reviewRegions',
  'reviewMoments',
  'policyOutcome',
  'signals',
]);

type MovedRow = Omit<SubmissionWithSlugs, 'agent' | 'channel'> & {
  readonly agentSlug: string;
  readonly channelSlug: string;
};

/** The row as `transitionSql` returns it: what it found, and the moved row when it moved. */
export interface TransitionRow {
  readonly current: SubmissionStatus;
  readonly current_media_type: MediaType;
  readonly current_purged: boolean;
  readonly original?: StoredOriginal | null;
  readonly moved: MovedRow | null;
}

/** Fragments side by side (Prisma.join refuses an empty list). */
const joined = (parts: Prisma.Sql[]): Prisma.Sql => (parts.length === 0 ? Prisma.empty : Prisma.join(parts, ''));

function patchSql(patch: TransitionPatch = {}): Prisma.Sql[] {
  return (Object.keys(PATCH_COLUMNS) as (keyof TransitionPatch)[])
    .filter((field) => patch[field] !== undefined)
    .map((field) => {
      const [column, type] = PATCH_COLUMNS[field];
      const value = JSON_FIELDS.has(field) && patch[field] !== null ? JSON.stringify(patch[field]) : patch[field];
      return Prisma.sql`, ${Prisma.raw(column)} = ${value}::${Prisma.raw(type)}`;
    });
}

/**
 * `old` locks the row and reads its status as it is now (READ COMMITTED re-reads a row another
 * transaction changed meanwhile); `moved` changes it only from an allowed status and only while
 * its media are not purged (a purge marks first, then deletes: a retry racing it must lose),
 * and `event` records the change the same instant.
 */
export function transitionSql(request: TransitionRequest, allowed: readonly SubmissionStatus[], now: Date): Prisma.Sql {
  const guards = [
    ...(request.onlyWithVisibility
      ? [Prisma.sql` AND s.visibility = ${request.onlyWithVisibility}::"Visibility"`]
      : []),
    ...(request.onlyMediaType ? [Prisma.sql` AND s.media_type = ${request.onlyMediaType}::"MediaType"`] : []),
  ];
  const original = request.withOriginal
    ? Prisma.sql`, (SELECT jsonb_build_object('bucket', o.bucket, 'key', o.key) FROM media_objects o
                     WHERE o.submission_id = old.id AND o.kind = 'original' AND o.name = 'original') AS original`
    : Prisma.empty;
  return Prisma.sql`
    WITH old AS MATERIALIZED (
      SELECT id, status, media_type, purged_at FROM submissions WHERE id = ${request.id} FOR UPDATE
    ), moved AS (
      UPDATE submissions s
         SET status = ${request.to}::"SubmissionStatus", updated_at = ${now}::timestamptz${joined(patchSql(request.patch))}
        FROM old, agents a, channels c
       WHERE s.id = old.id AND old.status::text = ANY(${[...allowed]}::text[]) AND old.purged_at IS NULL
         AND a.id = s.agent_id AND c.id = s.channel_id${joined(guards)}
      RETURNING s.id, s.status::text AS status, s.media_type::text AS "mediaType", s.agent_id AS "agentId",
                s.channel_id AS "channelId", s.date::text AS date, s.metadata, s.title,
                s.visibility::text AS visibility, s.failure_code AS "failureCode",
                s.failure_message AS "failureMessage", s.review_decision::text AS "reviewDecision",
                s.review_reason AS "reviewReason", s.reviewer_id AS "reviewerId", s.reviewed_at AS "reviewedAt",
                s.claimed_by AS "claimedBy", s.claimed_until AS "claimedUntil", s.width, s.height,
                s.duration_ms AS "durationMs", s.trace_parent AS "traceParent", s.created_at AS "createdAt",
                s.updated_at AS "updatedAt", s.purged_at AS "purgedAt", s.review_note AS "reviewNote",
                s.review_regions AS "reviewRegions", s.review_moments AS "reviewMoments", s.review_rule AS "reviewRule", s.revision_of AS "revisionOf",
                s.review_priority AS "reviewPriority", s.due_at AS "dueAt",
                s.approvals_required AS "approvalsRequired", s.policy_outcome AS "policyOutcome", a.slug AS "agentSlug",
                c.slug AS "channelSlug", old.status AS from_status
    ), event AS (
      INSERT INTO submission_events (submission_id, type, from_status, to_status, actor_type, actor_id, reason, data, created_at)
      SELECT id, 'transition', from_status, ${request.to}::"SubmissionStatus", ${request.actor.type}::"ActorType",
             ${request.actor.id ?? null}, ${request.reason ?? null},
             ${request.data === undefined ? null : JSON.stringify(request.data)}::jsonb, ${now}::timestamptz
        FROM moved
    )
    SELECT old.status::text AS current, old.media_type::text AS current_media_type,
           old.purged_at IS NOT NULL AS current_purged,
           (SELECT to_jsonb(m) - 'from_status' FROM moved m) AS moved${original}
      FROM old`;
}

const DATE_FIELDS = ['reviewedAt', 'claimedUntil', 'createdAt', 'updatedAt', 'purgedAt', 'dueAt'] as const;

/** The moved row (read back as JSON) as the repository's other reads return it. */
export function transitionedRow(moved: MovedRow): SubmissionWithSlugs {
  const { agentSlug, channelSlug, ...row } = moved;
  const dates = Object.fromEntries(
    DATE_FIELDS.map((field) => [field, row[field] == null ? null : new Date(row[field] as unknown as string)]),
  );
  return { ...row, ...dates, agent: { slug: agentSlug }, channel: { slug: channelSlug } } as SubmissionWithSlugs;
}
