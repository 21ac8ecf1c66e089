import type { ReviewStats } from '@framedesk/contracts';
import type { ChannelScope } from '@framedesk/db';

/** The slice of the review repository the numbers need. */
export interface StatsRepository {
  decisionTimes(reviewerId: string, since: Date): Promise<Date[]>;
  backlog(scope: ChannelScope, channelSlug?: string): Promise<{ waiting: number; oldest: Date | null }>;
}

/** A gap longer than this is a pause, not the time a decision took. */
export const PAUSE_MS = 15 * 60_000;

/** Median of the gaps between consecutive times (pauses left out), in whole seconds; null without a gap. */
export function medianSecondsBetween(times: readonly Date[]): number | null {
  const gaps = times
    .slice(1)
    .map((t, i) => t.getTime() - times[i]!.getTime())
    .filter((ms) => ms >= 0 && ms <= PAUSE_MS)
    .sort((a, b) => a - b);
  if (gaps.length === 0) return null;
  const mid = Math.floor(gaps.length / 2);
  const ms = gaps.length % 2 ? gaps[mid]! : (gaps[mid - 1]! + gaps[mid]!) / 2;
  return Math.round(ms / 1000);
}

/** Decisions today (since midnight UTC), their median pace, and the backlog of the reviewer's scope. */
export async function reviewerStats(
  repo: StatsRepository,
  input: { reviewerId: string; scope: ChannelScope; channel?: string; now: Date },
): Promise<ReviewStats> {
  const { now } = input;
  const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const [times, backlog] = await Promise.all([
    repo.decisionTimes(input.reviewerId, midnight),
    repo.backlog(input.scope, input.channel),
  ]);
  return {
    decisions_today: times.length,
    median_seconds_per_decision: medianSecondsBetween(times),
    backlog: {
      channel: input.channel ?? null,
      waiting: backlog.waiting,
      oldest_created_at: backlog.oldest?.toISOString() ?? null,
    },
  };
}
