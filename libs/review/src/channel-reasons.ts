// Each channel's reject reasons: its own taxonomy (`channel reasons set`), else REJECT_REASONS.
// A decision's reason must be on its channel's list; a reason removed later stays on old frames
// (their stored reason is text, never a reference into the list).
import { REJECT_REASONS } from '@framedesk/contracts';
import type { Database } from '@framedesk/db';
import { DomainError } from '@framedesk/domain';

/** At most this many reasons per channel, each 1 to MAX_REASON_LENGTH characters. */
export const MAX_REJECT_REASONS = 50;
export const MAX_REASON_LENGTH = 100;

/** The reasons a reviewer may reject with in the channel: its own list, or the default. */
export async function rejectReasonsOf(db: Database, channelId: string): Promise<readonly string[]> {
  return (await db.repos.feedback.rejectReasons(channelId)) ?? REJECT_REASONS;
}

/** A reason must be on the channel's list: 422 naming the allowed ones otherwise. */
export async function assertReasonAllowed(db: Database, channelId: string, reason: string): Promise<void> {
  const allowed = await rejectReasonsOf(db, channelId);
  if (allowed.includes(reason)) return;
  const detail = `"${reason}" is not a reject reason of this channel; allowed: ${allowed.join(', ')}.`;
  throw new DomainError('validation_failed', detail, { errors: [{ pointer: '/reason', detail }] });
}

/** Reasons as given: trimmed, 1 to MAX_REASON_LENGTH characters each, no repeats, 1 to MAX_REJECT_REASONS. */
export function parseRejectReasons(values: readonly string[]): string[] {
  const reasons = values.map((v) => v.trim());
  const problem =
    reasons.length === 0 || reasons.length > MAX_REJECT_REASONS
      ? `give 1 to ${MAX_REJECT_REASONS} reasons`
      : reasons.some((r) => r === '' || r.length > MAX_REASON_LENGTH)
        ? `each reason has 1 to ${MAX_REASON_LENGTH} characters`
        : new Set(reasons).size !== reasons.length
          ? 'each reason is given once'
          : null;
  if (problem) throw new DomainError('validation_failed', `Reject reasons: ${problem}.`);
  return reasons;
}

export interface ChannelReasonsView {
  readonly channel: string;
  readonly reasons: readonly string[];
  /** True while the channel uses the default list. */
  readonly default: boolean;
}

/** `channel reasons set|show`: every change recorded in account_events with who made it. */
export function channelReasonsService(db: Database, actor: string, now: () => Date = () => new Date()) {
  async function channelOf(slug: string) {
    const channel = await db.repos.channels.findBySlug(slug);
    if (!channel) throw new DomainError('not_found', `No channel ${slug}.`);
    return channel;
  }
  async function show(slug: string): Promise<ChannelReasonsView> {
    const channel = await channelOf(slug);
    const own = await db.repos.feedback.rejectReasons(channel.id);
    return { channel: slug, reasons: own ?? REJECT_REASONS, default: own === null };
  }
  return {
    show,
    /** Sets the channel's list; null goes back to the default. */
    async set(slug: string, reasons: readonly string[] | null): Promise<ChannelReasonsView> {
      const list = reasons === null ? null : parseRejectReasons(reasons);
      const channel = await channelOf(slug);
      await db.transaction((repos) => repos.feedback.setRejectReasons(channel.id, list, { actor, at: now() }));
      return show(slug);
    },
  };
}
