// The audit export's reads: every status change and every account, membership, retention,
// erasure and reject-reason change, in time order, in keyset batches (constant memory).
import { Prisma } from './generated/prisma/client.ts';
import type { DbClient } from './prisma';

export interface AuditWindow {
  readonly since?: Date;
  readonly until?: Date;
  /** Only what concerns this channel. */
  readonly channelId?: string;
}

/** Where the previous batch ended: (created_at, id). */
export interface AuditPosition {
  readonly at: Date;
  readonly id: bigint;
}

/** One row of the trail, whichever table it comes from. */
export interface AuditRow {
  readonly id: bigint;
  readonly at: Date;
  readonly kind: 'transition' | 'approval' | 'account' | 'policy';
  readonly channel: string | null;
  /** The submission id, or `<subject type>:<email, slug or id>`. */
  readonly subject: string;
  readonly who: string;
  readonly from: string | null;
  readonly to: string | null;
  readonly action: string | null;
  readonly reason: string | null;
  readonly note: string | null;
}

const windowSql = (alias: string, w: AuditWindow, after?: AuditPosition) => [
  w.since ? Prisma.sql`AND ${Prisma.raw(alias)}.created_at >= ${w.since}` : Prisma.empty,
  w.until ? Prisma.sql`AND ${Prisma.raw(alias)}.created_at < ${w.until}` : Prisma.empty,
  after
    ? Prisma.sql`AND (${Prisma.raw(alias)}.created_at, ${Prisma.raw(alias)}.id) > (${after.at}, ${after.id})`
    : Prisma.empty,
];

export function auditRepository(db: DbClient) {
  return {
    /**
     * Status changes: who is the reviewer's email, `agent:<slug>`, `policy:<rule>` (a review
     * policy's decision) or `system`; the note is the decision's note to the agent. With them the
     * approvals of a frame that needs several reviewers' promotes (kind `approval`: the
     * reviewer, the time, the reason `1 of 2`, no status change), so the first approver is on the record.
     */
    transitions: (w: AuditWindow, after: AuditPosition | undefined, limit: number): Promise<AuditRow[]> =>
      db.$queryRaw<AuditRow[]>(Prisma.sql`
        SELECT e.id, e.created_at AS at, e.type AS kind, c.slug AS channel, e.submission_id AS subject,
               CASE e.actor_type
                 WHEN 'reviewer' THEN coalesce(r.email, 'reviewer:' || e.actor_id)
                 WHEN 'agent' THEN 'agent:' || a.slug
                 ELSE CASE WHEN e.data->>'rule' IS NOT NULL THEN 'policy:' || (e.data->>'rule') ELSE 'system' END
               END AS who,
               CASE WHEN e.type = 'transition' THEN e.from_status::text END AS "from",
               CASE WHEN e.type = 'transition' THEN e.to_status::text END AS "to",
               NULL::text AS action,
               CASE WHEN e.type = 'approval'
                 THEN (e.data->>'approvals') || ' of ' || (e.data->>'required') ELSE e.reason END AS reason,
               e.data->>'note' AS note
        FROM submission_events e
        JOIN submissions s ON s.id = e.submission_id
        JOIN channels c ON c.id = s.channel_id
        JOIN agents a ON a.id = s.agent_id
        LEFT JOIN reviewers r ON e.actor_type = 'reviewer' AND r.id = e.actor_id
        WHERE e.type IN ('transition', 'approval')
          ${w.channelId ? Prisma.sql`AND s.channel_id = ${w.channelId}` : Prisma.empty}
          ${Prisma.join(windowSql('e', w, after), ' ')}
        ORDER BY e.created_at, e.id LIMIT ${limit}`),

    /**
     * Account, membership, retention, erasure and reject-reason changes (account_events); an API
     * key is named by its display prefix. With a channel: the channel's own changes, memberships of
     * it, and erasures of its frames.
     */
    accountChanges: (w: AuditWindow, after: AuditPosition | undefined, limit: number): Promise<AuditRow[]> =>
      db.$queryRaw<AuditRow[]>(Prisma.sql`
        SELECT ev.id, ev.created_at AS at, 'account' AS kind,
               coalesce(ch.slug, mc.slug, sc.slug) AS channel,
               ev.subject_type || ':' || coalesce(rv.email, ag.slug, ch.slug, ak.prefix, ev.subject_id) AS subject,
               coalesce(actor.email, ev.actor) AS who, NULL::text AS "from", NULL::text AS "to", ev.action,
               NULL::text AS reason, NULL::text AS note
        FROM account_events ev
        LEFT JOIN reviewers rv ON ev.subject_type = 'reviewer' AND rv.id = ev.subject_id
        LEFT JOIN agents ag ON ev.subject_type = 'agent' AND ag.id = ev.subject_id
        LEFT JOIN channels ch ON ev.subject_type = 'channel' AND ch.id = ev.subject_id
        LEFT JOIN api_keys ak ON ev.subject_type = 'api_key' AND ak.id = ev.subject_id
        LEFT JOIN channels mc ON mc.id = ev.data->>'channel_id'
        LEFT JOIN submissions sub ON ev.subject_type = 'submission' AND sub.id = ev.subject_id
        LEFT JOIN channels sc ON sc.id = sub.channel_id
        LEFT JOIN reviewers actor ON ev.actor = 'reviewer:' || actor.id
        WHERE true
          ${w.channelId ? Prisma.sql`AND ${w.channelId} IN (ch.id, mc.id, sc.id)` : Prisma.empty}
          ${Prisma.join(windowSql('ev', w, after), ' ')}
        ORDER BY ev.created_at, ev.id LIMIT ${limit}`),

    /** Review policy changes (policy_changes): `from` and `to` are the old and new policy as JSON, null for none. */
    policyChanges: (w: AuditWindow, after: AuditPosition | undefined, limit: number): Promise<AuditRow[]> =>
      db.$queryRaw<AuditRow[]>(Prisma.sql`
        SELECT pc.id, pc.created_at AS at, 'policy' AS kind, ch.slug AS channel, 'channel:' || ch.slug AS subject,
               coalesce(actor.email, pc.actor) AS who, pc.old_policy::text AS "from", pc.new_policy::text AS "to",
               CASE WHEN pc.new_policy IS NULL THEN 'policy_cleared' ELSE 'policy_set' END AS action,
               NULL::text AS reason, NULL::text AS note
        FROM policy_changes pc
        JOIN channels ch ON ch.id = pc.channel_id
        LEFT JOIN reviewers actor ON pc.actor = 'reviewer:' || actor.id
        WHERE true
          ${w.channelId ? Prisma.sql`AND pc.channel_id = ${w.channelId}` : Prisma.empty}
          ${Prisma.join(windowSql('pc', w, after), ' ')}
        ORDER BY pc.created_at, pc.id LIMIT ${limit}`),
  };
}
