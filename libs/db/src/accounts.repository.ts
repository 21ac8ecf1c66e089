import type { ReviewerRole } from '@framedesk/domain';
import { notifyAccessChange } from './access-changes';
import type { DbClient, Prisma } from './prisma';

/** Who changed an account: `cli:<login>` for operator commands. */
export interface AccountChange {
  readonly actor: string;
  readonly at: Date;
}

export interface AccountEventRow {
  readonly subjectType: string;
  readonly subjectId: string;
  readonly action: string;
  readonly actor: string;
  readonly data: unknown;
  readonly createdAt: Date;
}

/** A reviewer as the People screen and `reviewer list` show them. */
export interface ReviewerListRow {
  readonly id: string;
  readonly email: string;
  readonly name: string | null;
  readonly role: ReviewerRole;
  readonly createdAt: Date;
  readonly disabledAt: Date | null;
  readonly lastSeenAt: Date | null;
  readonly hasPassword: boolean;
  readonly channels: string[];
  readonly sessions: number;
}

/**
 * One line of account_events: who did `action` to `subject`, when, and what it changed. Every
 * repository that audits a change (accounts, retention, erasure, media verify, reject reasons)
 * writes it here, in the caller's transaction.
 */
export function recordAccountEvent(
  db: DbClient,
  subject: { type: string; id: string },
  action: string,
  who: AccountChange,
  data?: Prisma.InputJsonValue,
) {
  return db.accountEvent.create({
    data: {
      subjectType: subject.type,
      subjectId: subject.id,
      action,
      actor: who.actor,
      createdAt: who.at,
      ...(data ? { data } : {}),
    },
  });
}

/**
 * Operator changes to reviewers, agents and keys, each recorded in account_events in the same
 * transaction; a change to what a reviewer may do is also announced (NOTIFY) to open event streams.
 */
export function accountsRepository(db: DbClient) {
  const record = (
    subjectType: 'reviewer' | 'agent' | 'api_key',
    subjectId: string,
    action: string,
    change: AccountChange,
    data?: Prisma.InputJsonValue,
  ) => recordAccountEvent(db, { type: subjectType, id: subjectId }, action, change, data);

  return {
    record,
    async setReviewerDisabled(reviewerId: string, disabled: boolean, change: AccountChange): Promise<void> {
      await db.reviewer.update({ where: { id: reviewerId }, data: { disabledAt: disabled ? change.at : null } });
      if (disabled) await db.reviewerSession.deleteMany({ where: { reviewerId } });
      await record('reviewer', reviewerId, disabled ? 'disabled' : 'enabled', change);
      await notifyAccessChange(db, reviewerId);
    },
    async setReviewerPassword(reviewerId: string, passwordHash: string, change: AccountChange): Promise<number> {
      await db.reviewer.update({ where: { id: reviewerId }, data: { passwordHash } });
      const { count } = await db.reviewerSession.deleteMany({ where: { reviewerId } });
      await record('reviewer', reviewerId, 'password_set', change, { sessions_ended: count });
      await notifyAccessChange(db, reviewerId);
      return count;
    },
    /** The first password of an account that had none (an invite link); false when it has one by now. */
    async setFirstPassword(reviewerId: string, passwordHash: string, change: AccountChange): Promise<boolean> {
      const { count } = await db.reviewer.updateMany({
        where: { id: reviewerId, passwordHash: null },
        data: { passwordHash },
      });
      if (count === 1) await record('reviewer', reviewerId, 'password_set', change, { first: true });
      return count === 1;
    },
    async revokeReviewerSessions(reviewerId: string, change: AccountChange): Promise<number> {
      const { count } = await db.reviewerSession.deleteMany({ where: { reviewerId } });
      await record('reviewer', reviewerId, 'sessions_revoked', change, { sessions_ended: count });
      await notifyAccessChange(db, reviewerId);
      return count;
    },
    /** Returns whether the role changed. */
    async setReviewerRole(reviewerId: string, role: ReviewerRole, change: AccountChange): Promise<boolean> {
      const { count } = await db.reviewer.updateMany({
        where: { id: reviewerId, role: { not: role } },
        data: { role },
      });
      if (count === 0) return false;
      await record('reviewer', reviewerId, 'role_set', change, { role });
      await notifyAccessChange(db, reviewerId);
      return true;
    },
    /** Returns whether the membership changed. */
    async setReviewerChannel(
      reviewerId: string,
      channelId: string,
      member: boolean,
      change: AccountChange,
    ): Promise<boolean> {
      const { count } = member
        ? await db.reviewerChannel.createMany({ data: [{ reviewerId, channelId }], skipDuplicates: true })
        : await db.reviewerChannel.deleteMany({ where: { reviewerId, channelId } });
      if (count === 0) return false;
      await record('reviewer', reviewerId, member ? 'channel_added' : 'channel_removed', change, {
        channel_id: channelId,
      });
      await notifyAccessChange(db, reviewerId);
      return true;
    },
    /**
     * The enabled admins, locked until the transaction ends: two admins demoting each other at
     * once cannot both succeed and leave none.
     */
    async lockEnabledAdmins(): Promise<string[]> {
      const rows = await db.$queryRaw<{ id: string }[]>`
        SELECT id FROM reviewers WHERE role = 'admin' AND disabled_at IS NULL ORDER BY id FOR UPDATE`;
      return rows.map((r) => r.id);
    },
    /** Every reviewer by email, or the one with `id`. */
    async listReviewers(id?: string): Promise<ReviewerListRow[]> {
      const rows = await db.reviewer.findMany({
        ...(id !== undefined ? { where: { id } } : {}),
        orderBy: { email: 'asc' },
        select: {
          id: true,
          email: true,
          name: true,
          role: true,
          createdAt: true,
          disabledAt: true,
          lastSeenAt: true,
          passwordHash: true,
          channels: { select: { channel: { select: { slug: true } } } },
          _count: { select: { sessions: true } },
        },
      });
      return rows.map(({ passwordHash, channels, _count, ...r }) => ({
        ...r,
        hasPassword: passwordHash !== null,
        channels: channels.map((c) => c.channel.slug).sort(),
        sessions: _count.sessions,
      }));
    },
    async setAgentDisabled(agentId: string, disabled: boolean, change: AccountChange): Promise<void> {
      await db.agent.update({ where: { id: agentId }, data: { disabledAt: disabled ? change.at : null } });
      await record('agent', agentId, disabled ? 'disabled' : 'enabled', change);
    },
    async addChannel(agentId: string, channelId: string, change: AccountChange): Promise<boolean> {
      const { count } = await db.agentChannel.createMany({ data: [{ agentId, channelId }], skipDuplicates: true });
      if (count > 0) await record('agent', agentId, 'channel_added', change, { channel_id: channelId });
      return count > 0;
    },
    async removeChannel(agentId: string, channelId: string, change: AccountChange): Promise<boolean> {
      const { count } = await db.agentChannel.deleteMany({ where: { agentId, channelId } });
      if (count > 0) await record('agent', agentId, 'channel_removed', change, { channel_id: channelId });
      return count > 0;
    },
    listAgents: () =>
      db.agent.findMany({
        orderBy: { slug: 'asc' },
        select: {
          slug: true,
          name: true,
          createdAt: true,
          disabledAt: true,
          channels: { select: { channel: { select: { slug: true } } } },
          apiKeys: { select: { prefix: true, revokedAt: true, expiresAt: true } },
        },
      }),
    listChannels: () =>
      db.channel.findMany({
        orderBy: { slug: 'asc' },
        select: { slug: true, name: true, createdAt: true, _count: { select: { agents: true } } },
      }),
    /** Active (not revoked, not expired) keys whose display prefix starts with `prefix`. */
    activeKeysByPrefix: (prefix: string, at: Date) =>
      db.apiKey.findMany({
        where: {
          prefix: { startsWith: prefix },
          revokedAt: null,
          OR: [{ expiresAt: null }, { expiresAt: { gt: at } }],
        },
        select: { id: true, agentId: true, prefix: true, expiresAt: true },
      }),
    /** The old key of a rotation keeps working until `expiresAt`. */
    async expireKey(keyId: string, expiresAt: Date, change: AccountChange, data: Prisma.InputJsonValue) {
      await db.apiKey.update({ where: { id: keyId }, data: { expiresAt } });
      await record('api_key', keyId, 'rotated', change, data);
    },
    events: (subjectType: string, subjectId: string): Promise<AccountEventRow[]> =>
      db.accountEvent.findMany({ where: { subjectType, subjectId }, orderBy: { id: 'asc' } }),
  };
}
