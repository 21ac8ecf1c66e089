import { Prisma } from './generated/prisma/client.ts';
import {
  bandCandidates,
  bandMasks,
  DEFAULT_SIMILARITY,
  fingerprintBands,
  type FingerprintRow,
  type FingerprintToSave,
  type SavedFingerprint,
  saveFingerprintSql,
  savedRow,
  type SimilaritySettings,
} from './fingerprints.repository';
import type { DbClient } from './prisma';

/** A channel's review policy as stored (docs/policies.md). */
export interface ChannelPolicyRow {
  readonly channelId: string;
  readonly policy: unknown;
  readonly version: number;
  readonly updatedAt: Date;
  readonly updatedBy: string;
}

export interface PolicyChangeRow {
  readonly id: bigint;
  readonly channelId: string;
  readonly actor: string;
  readonly createdAt: Date;
  readonly oldPolicy: unknown;
  readonly newPolicy: unknown;
}

/** Human decisions of an agent's frames in a window. */
export interface AgentDecisionCounts {
  readonly promoted: number;
  readonly rejected: number;
}

/** A frame decided by a person, as `policy simulate` replays it. */
export interface DecidedFrameRow {
  readonly id: string;
  readonly createdAt: Date;
  readonly decision: 'promoted' | 'rejected';
  readonly reason: string | null;
  readonly agentId: string;
  readonly agentSlug: string;
  readonly mediaType: 'image' | 'video';
  readonly metadata: unknown;
  readonly width: number | null;
  readonly height: number | null;
  readonly durationMs: number | null;
  readonly bytes: number | null;
  readonly signals: unknown;
}

/** The nearest decided frames of `saveFingerprintWithHistory`: a status with no frame that near is left out. */
export interface NearestDecided {
  readonly promoted?: number;
  readonly rejected?: number;
}

export interface FingerprintWithHistory {
  readonly fingerprint: FingerprintRow;
  readonly nearest: NearestDecided;
  /** With `agent`: the agent's human decisions in the window; else null. */
  readonly agent: AgentDecisionCounts | null;
}

const DAY_MS = 86_400_000;

/**
 * The smallest fingerprint distance from `hash` to a promoted and to a rejected frame of the
 * submission's channel within the near-duplicate settings; a rejected frame counts only when a
 * person rejected it (`reviewer_id`), so a policy's own rejections do not feed `nearest_rejected`
 * (docs/policies.md: one false automatic rejection must not spread to every near-copy), one row (status, distance) per status
 * that has one. The same capped band lookup as the near-duplicate search (MAX_BAND_CANDIDATES per
 * band), so a channel flooded with identical hashes (blank frames) costs a bounded read, not one
 * per frame.
 */
function nearestDecidedSql(submissionId: string, hash: bigint, settings: SimilaritySettings): Prisma.Sql {
  const masks = bandMasks(Math.floor(settings.maxDistance / 4));
  const [b0, b1, b2, b3] = fingerprintBands(hash).map((band) => masks.map((m) => band ^ m));
  const distance = Prisma.sql`bit_count((f.perceptual_hash # ${hash})::bit(64))`;
  const origin = {
    channelId: Prisma.sql`(SELECT channel_id FROM submissions WHERE id = ${submissionId})`,
    createdAt: Prisma.sql`${new Date()}`,
    since: Prisma.sql`${new Date(Date.now() - settings.windowDays * DAY_MS)}`,
  };
  return Prisma.sql`
    SELECT s.status::text AS status, min(${distance})::int AS distance
    FROM (
      ${bandCandidates(Prisma.sql`f.band_0`, b0!, origin)}
      UNION ${bandCandidates(Prisma.sql`f.band_1`, b1!, origin)}
      UNION ${bandCandidates(Prisma.sql`f.band_2`, b2!, origin)}
      UNION ${bandCandidates(Prisma.sql`f.band_3`, b3!, origin)}
    ) f JOIN submissions s ON s.id = f.submission_id
    WHERE f.submission_id <> ${submissionId}
      AND (s.status = 'promoted' OR (s.status = 'rejected' AND s.reviewer_id IS NOT NULL))
      AND ${distance} <= ${settings.maxDistance}
    GROUP BY s.status`;
}

/**
 * The agent's frames sent since `since` (by whole UTC days) that a person decided, counted by
 * decision (one row): summed from `agent_decision_days`, which a trigger keeps per agent and day,
 * so it reads at most 31 rows of the primary key whatever the agent's history (issue 43).
 */
function agentDecisionsSql(agentId: string, since: Date): Prisma.Sql {
  return Prisma.sql`
    SELECT coalesce(sum(promoted), 0)::bigint AS promoted, coalesce(sum(rejected), 0)::bigint AS rejected
    FROM agent_decision_days
    WHERE agent_id = ${agentId} AND day >= (${since}::timestamptz AT TIME ZONE 'UTC')::date`;
}

/** Review policies per channel, their audit trail, and what the rules read from the history. */
export function policiesRepository(db: DbClient) {
  return {
    /** The channel's policy in force; null when it has none (never set, or cleared). */
    async find(channelId: string): Promise<ChannelPolicyRow | null> {
      const row = await db.channelPolicy.findUnique({ where: { channelId } });
      return row && row.policy !== null ? { ...row, policy: row.policy } : null;
    },

    /** Every channel's policy in force, with the channel's slug (`doctor`). */
    async all(): Promise<(ChannelPolicyRow & { readonly channel: string })[]> {
      const rows = await db.channelPolicy.findMany({
        where: { policy: { not: Prisma.DbNull } },
        include: { channel: { select: { slug: true } } },
        orderBy: { channelId: 'asc' },
      });
      return rows.flatMap(({ channel, ...row }) =>
        row.policy === null ? [] : [{ ...row, policy: row.policy, channel: channel.slug }],
      );
    },

    /**
     * The version of each channel's policy row (the worker's cache compares it). A cleared policy
     * keeps its row (policy NULL) and its version: versions of a channel never repeat.
     */
    async versions(channelIds: readonly string[]): Promise<Map<string, number>> {
      if (channelIds.length === 0) return new Map();
      const rows = await db.channelPolicy.findMany({
        where: { channelId: { in: [...channelIds] } },
        select: { channelId: true, version: true },
      });
      return new Map(rows.map((r) => [r.channelId, r.version]));
    },

    /**
     * Sets the policy and records who changed it from what to what. Run it in a transaction
     * (`Database.transaction`): the old policy is read under a row lock first.
     */
    async set(channelId: string, policy: unknown, actor: string): Promise<{ version: number }> {
      const json = JSON.stringify(policy);
      const [old] = await db.$queryRaw<{ policy: unknown }[]>`
        SELECT policy FROM channel_policies WHERE channel_id = ${channelId} FOR UPDATE`;
      const rows = await db.$queryRaw<{ version: number }[]>`
        WITH up AS (
          INSERT INTO channel_policies (channel_id, policy, version, updated_at, updated_by)
          VALUES (${channelId}, ${json}::jsonb, 1, now(), ${actor})
          ON CONFLICT (channel_id) DO UPDATE SET policy = EXCLUDED.policy,
            version = channel_policies.version + 1, updated_at = now(), updated_by = EXCLUDED.updated_by
          RETURNING version),
        change AS (
          INSERT INTO policy_changes (channel_id, actor, old_policy, new_policy)
          VALUES (${channelId}, ${actor}, ${old?.policy != null ? JSON.stringify(old.policy) : null}::jsonb, ${json}::jsonb))
        SELECT version FROM up`;
      return { version: Number(rows[0]?.version ?? 1) };
    },

    /**
     * Removes the policy (recorded); false when there was none. The row stays as a tombstone
     * (policy NULL) with the next version, so a later `set` gets a version no cache has seen.
     */
    async clear(channelId: string, actor: string): Promise<boolean> {
      const rows = await db.$queryRaw<{ id: bigint }[]>`
        WITH old AS (
          SELECT policy FROM channel_policies
          WHERE channel_id = ${channelId} AND policy IS NOT NULL FOR UPDATE),
        gone AS (
          UPDATE channel_policies SET policy = NULL, version = version + 1, updated_at = now(),
                 updated_by = ${actor}
          WHERE channel_id = ${channelId} AND policy IS NOT NULL
          RETURNING channel_id)
        INSERT INTO policy_changes (channel_id, actor, old_policy, new_policy)
        SELECT ${channelId}, ${actor}, old.policy, NULL FROM old, gone
        RETURNING id`;
      return rows.length > 0;
    },

    changes: (channelId: string): Promise<PolicyChangeRow[]> =>
      db.policyChange.findMany({ where: { channelId }, orderBy: { id: 'asc' } }),

    /**
     * `fingerprints.save` and, in the same statement (the image pipeline's one read of history
     * for a policy), the nearest decided frames (`nearestDecidedSql`) and, with `agent`, that
     * agent's human decisions since `agent.since` (`agentDecisions`). null when there is no such
     * submission.
     */
    async saveFingerprintWithHistory(
      input: FingerprintToSave & { readonly agent?: { readonly id: string; readonly since: Date } },
    ): Promise<FingerprintWithHistory | null> {
      const settings = input.settings ?? DEFAULT_SIMILARITY;
      const agent = input.agent
        ? Prisma.sql`(SELECT jsonb_build_object('promoted', promoted, 'rejected', rejected)
                        FROM (${agentDecisionsSql(input.agent.id, input.agent.since)}) d)`
        : Prisma.sql`NULL::jsonb`;
      const rows = await db.$queryRaw<
        (SavedFingerprint & { nearest: NearestDecided; agent: AgentDecisionCounts | null })[]
      >`
        WITH saved AS (${saveFingerprintSql(input)})
        SELECT saved.*,
               (SELECT coalesce(jsonb_object_agg(n.status, n.distance), '{}'::jsonb)
                  FROM (${nearestDecidedSql(input.submissionId, input.perceptualHash, settings)}) n) AS nearest,
               ${agent} AS agent
          FROM saved`;
      const row = rows[0];
      if (!row) return null;
      const { nearest, agent: counts, ...saved } = row;
      return {
        fingerprint: savedRow(input, saved),
        nearest: {
          ...(nearest.promoted !== undefined ? { promoted: Number(nearest.promoted) } : {}),
          ...(nearest.rejected !== undefined ? { rejected: Number(nearest.rejected) } : {}),
        },
        agent: counts ? { promoted: Number(counts.promoted), rejected: Number(counts.rejected) } : null,
      };
    },

    /**
     * The scoring hook's answer recorded for a frame (a `scored` event, actor system), so a
     * provider's retried webhook does not ask the scoring service again; null when none is.
     */
    async recordedScoring(submissionId: string): Promise<Record<string, unknown> | null> {
      const row = await db.submissionEvent.findFirst({
        where: { submissionId, type: 'scored' },
        orderBy: { id: 'desc' },
        select: { data: true },
      });
      return (row?.data as Record<string, unknown> | null | undefined) ?? null;
    },

    async recordScoring(submissionId: string, result: Record<string, unknown>): Promise<void> {
      await db.submissionEvent.create({
        data: { submissionId, type: 'scored', actorType: 'system', data: result as Prisma.InputJsonValue },
      });
    },

    /** The agent's frames sent since `since` that a person decided, by decision. */
    async agentDecisions(agentId: string, since: Date): Promise<AgentDecisionCounts> {
      const [row] = await db.$queryRaw<{ promoted: bigint; rejected: bigint }[]>(agentDecisionsSql(agentId, since));
      return { promoted: Number(row?.promoted ?? 0), rejected: Number(row?.rejected ?? 0) };
    },

    /**
     * A reviewer's promote of a frame that needs more approvals than it has: added to `approved_by`
     * with an `approval` event, compare-and-set (still waiting, not yet approved by them, and still
     * short of the approvals required). The approvals it now has, or null when that no longer held.
     */
    async approve(id: string, reviewerId: string): Promise<{ approvals: number; required: number } | null> {
      const rows = await db.$queryRaw<{ approvals: number; required: number }[]>`
        WITH up AS (
          UPDATE submissions SET approved_by = array_append(approved_by, ${reviewerId}),
                 claimed_by = NULL, claimed_until = NULL, updated_at = now()
          WHERE id = ${id} AND status = 'needs_review' AND NOT (${reviewerId} = ANY(approved_by))
            AND cardinality(approved_by) + 1 < approvals_required
          RETURNING id, cardinality(approved_by) AS approvals, approvals_required AS required),
        event AS (
          INSERT INTO submission_events (submission_id, type, actor_type, actor_id, data)
          SELECT id, 'approval', 'reviewer', ${reviewerId},
                 jsonb_build_object('approvals', approvals, 'required', required) FROM up)
        SELECT approvals, required FROM up`;
      const row = rows[0];
      return row ? { approvals: Number(row.approvals), required: Number(row.required) } : null;
    },

    /** Frames waiting past their `due_at`, per channel slug. */
    async overduePerChannel(now: Date): Promise<{ channel: string; overdue: number }[]> {
      const rows = await db.$queryRaw<{ channel: string; overdue: bigint }[]>`
        SELECT c.slug AS channel, count(*) AS overdue
        FROM submissions s JOIN channels c ON c.id = s.channel_id
        WHERE s.status = 'needs_review' AND s.due_at IS NOT NULL AND s.due_at < ${now}
        GROUP BY c.slug`;
      return rows.map((r) => ({ channel: r.channel, overdue: Number(r.overdue) }));
    },

    /** A batch of the channel's frames decided by people since `since`, keyset on (created_at, id). */
    async decidedByPeople(input: {
      channelId: string;
      since: Date;
      after?: { createdAt: Date; id: string };
      limit: number;
    }): Promise<DecidedFrameRow[]> {
      const after = input.after
        ? Prisma.sql`AND (s.created_at, s.id) > (${input.after.createdAt}::timestamptz, ${input.after.id})`
        : Prisma.empty;
      const rows = await db.$queryRaw<(Omit<DecidedFrameRow, 'bytes'> & { bytes: bigint | null })[]>`
        SELECT s.id, s.created_at AS "createdAt", s.status::text AS decision, s.review_reason AS reason,
               s.agent_id AS "agentId", a.slug AS "agentSlug", s.media_type::text AS "mediaType",
               s.metadata, s.width, s.height, s.duration_ms AS "durationMs", s.signals,
               (SELECT m.byte_size FROM media_objects m
                 WHERE m.submission_id = s.id AND m.kind = 'original' LIMIT 1) AS bytes
        FROM submissions s JOIN agents a ON a.id = s.agent_id
        WHERE s.channel_id = ${input.channelId} AND s.created_at >= ${input.since}
          AND s.status IN ('promoted', 'rejected') AND s.reviewer_id IS NOT NULL ${after}
        ORDER BY s.created_at, s.id
        LIMIT ${input.limit}`;
      return rows.map((r) => ({ ...r, bytes: r.bytes === null ? null : Number(r.bytes) }));
    },
  };
}
