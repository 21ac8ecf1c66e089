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

/** Operator changes to reviewers, agents and keys, each recorded in account_events in the same transaction. */
export function accountsRepository(db: DbClient) {
  const record = (
    subjectType: 'reviewer' | 'agent' | 'api_key',
    subjectId: string,
    action: string,
    change: AccountChange,
    data?: Prisma.InputJsonValue,
  ) =>
    db.accountEvent.create({
      data: { subjectType, subjectId, action, actor: change.actor, createdAt: change.at, ...(data ? { data } : {}) },
    });

  return {
    record,
    async setReviewerDisabled(reviewerId: string, disabled: boolean, change: AccountChange): Promise<void> {
      await db.reviewer.update({ where: { id: reviewerId }, data: { disabledAt: disabled ? change.at : null } });
      if (disabled) await db.reviewerSession.deleteMany({ where: { reviewerId } });
      await record('reviewer', reviewerId, disabled ? 'disabled' : 'enabled', change);
    },
    async setReviewerPassword(reviewerId: string, passwordHash: string, change: AccountChange): Promise<number> {
      await db.reviewer.update({ where: { id: reviewerId }, data: { passwordHash } });
      const { count } = await db.reviewerSession.deleteMany({ where: { reviewerId } });
      await record('reviewer', reviewerId, 'password_set', change, { sessions_ended: count });
      return count;
    },
    async revokeReviewerSessions(reviewerId: string, change: AccountChange): Promise<number> {
      const { count } = await db.reviewerSession.deleteMany({ where: { reviewerId } });
      await record('reviewer', reviewerId, 'sessions_revoked', change, { sessions_ended: count });
      return count;
    },
    listReviewers: () =>
      db.reviewer.findMany({
        orderBy: { email: 'asc' },
        select: { email: true, name: true, createdAt: true, disabledAt: true, _count: { select: { sessions: true } } },
      }),
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
