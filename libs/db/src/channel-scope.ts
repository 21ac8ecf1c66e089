import { Prisma } from './generated/prisma/client.ts';

/**
 * Which channels a reader of the review API may see: every one (an admin), or only those a
 * reviewer is a member of. Repositories put it into the statement itself, so nothing outside the
 * scope is ever read and then hidden.
 */
export type ChannelScope = { readonly all: true } | { readonly memberOf: string };

export const ALL_CHANNELS: ChannelScope = { all: true };

/** A SQL condition on `column` (a channel id): true in every channel of the scope. */
export function channelScopeSql(scope: ChannelScope, column: Prisma.Sql): Prisma.Sql {
  if ('all' in scope) return Prisma.sql`TRUE`;
  return Prisma.sql`${column} IN (SELECT rc.channel_id FROM reviewer_channels rc WHERE rc.reviewer_id = ${scope.memberOf})`;
}

/** The same condition for Prisma's query builder, on a submission. */
export function submissionInScope(scope: ChannelScope): Prisma.SubmissionWhereInput {
  return 'all' in scope ? {} : { channel: { reviewers: { some: { reviewerId: scope.memberOf } } } };
}

/** The same condition on a channel. */
export function channelInScope(scope: ChannelScope): Prisma.ChannelWhereInput {
  return 'all' in scope ? {} : { reviewers: { some: { reviewerId: scope.memberOf } } };
}
