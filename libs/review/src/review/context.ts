import type { Readable } from 'node:stream';
import { DomainError, type ReviewerRole } from '@framedesk/domain';
import { ALL_CHANNELS, type ChannelScope, type Database } from '@framedesk/db';
import type { ReviewChangePublisher } from '@framedesk/queues';
import type { MediaUrlFn, ViewerMediaUrlFn } from '../review.views';
import { type NearDuplicateSettings, similarityService } from '../similarity.service';

export interface QueueDepth {
  readonly waiting: number;
  readonly active: number;
  readonly delayed: number;
  readonly failed: number;
}

/** The slice of the queue producer a retry needs (libs/queues' QueueProducer satisfies it). */
export interface RetryEnqueuer {
  enqueue(
    name: 'image.process' | 'video.process',
    payload: { submissionId: string },
    options: { attempt: string; origin?: { requestId?: string | undefined } },
  ): Promise<void>;
}

/** Reads stored objects (libs/storage's ObjectStorage satisfies it). */
export interface ObjectReader {
  /** The object's bytes, or only `options.range` of them (inclusive), read as a range from the store. */
  get(bucket: string, key: string, options?: { range?: ByteRange }): Promise<Readable>;
}

/** Bytes `start`..`end` of an object, both inclusive. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

export interface ReviewServiceDeps {
  readonly db: Database;
  readonly storage: ObjectReader;
  /** Media links for the reviewer they are issued to. */
  readonly mediaUrl: ViewerMediaUrlFn;
  readonly queues: RetryEnqueuer;
  readonly queueDepths: () => Promise<Record<string, QueueDepth>>;
  /** How long a claim lasts; the workbench renews it while the reviewer stays on the frame. */
  readonly claimSeconds?: number;
  readonly now?: () => Date;
  /** Announces claims and visibility changes to open workbenches (status changes announce themselves). */
  readonly changes?: ReviewChangePublisher;
  /** Near-duplicate search (threshold, window); defaults to 10 bits and 90 days. */
  readonly nearDuplicates?: NearDuplicateSettings;
  /** Counts decisions by outcome (libs/observability's pipeline metrics). */
  readonly decisions?: {
    decided(outcome: 'promoted' | 'rejected'): void;
    /** A sampled frame's decision agreed with its review policy's rule, or not. */
    judged?(rule: string, agrees: boolean): void;
  };
}

export interface Reviewer {
  readonly reviewerId: string;
  readonly email: string;
  readonly role: ReviewerRole;
}

/** What a reviewer may read: every channel (admin), or their channels; applied inside each query. */
export function scopeOf(me: Reviewer): ChannelScope {
  return me.role === 'admin' ? ALL_CHANNELS : { memberOf: me.reviewerId };
}

/** Ops, retries and people are for admins: 403 for anyone else. */
export function assertAdmin(me: Reviewer): void {
  if (me.role !== 'admin') throw new DomainError('forbidden', 'Only an admin may do this.');
}

// Outside the reviewer's channels reads exactly like "does not exist", so existence never leaks.
export const notFound = (id: string) => new DomainError('not_found', `No submission ${id}.`);

/** What every part of the review service shares: its dependencies and a few helpers over them. */
export function reviewContext(deps: ReviewServiceDeps) {
  const { db } = deps;
  const repo = db.repos.review;
  const urlsFor =
    (me: Reviewer): MediaUrlFn =>
    (id, name) =>
      deps.mediaUrl(id, name, me.reviewerId);
  return {
    deps,
    db,
    repo,
    urlsFor,
    now: deps.now ?? (() => new Date()),
    claimMs: (deps.claimSeconds ?? 300) * 1000,
    actorOf: (me: Reviewer) => ({ type: 'reviewer' as const, id: me.reviewerId }),
    similarity: similarityService({ db, ...(deps.nearDuplicates ? { settings: deps.nearDuplicates } : {}) }),
    /** The submission when it exists inside the reviewer's channels; 404 otherwise. */
    async visible(id: string, me: Reviewer) {
      const row = await repo.findInScope(id, scopeOf(me));
      if (!row) throw notFound(id);
      return row;
    },
  };
}

export type ReviewContext = ReturnType<typeof reviewContext>;
