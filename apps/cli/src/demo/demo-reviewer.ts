import { signMediaUrl } from '@framedesk/access';
import type { Settings } from '@framedesk/config';
import type { Database } from '@framedesk/db';
import { createQueueProducer, createRedis, reviewChangePublisher, withReviewChanges } from '@framedesk/queues';
import { reviewService } from '@framedesk/review';
import type { SampleReviewer } from '@framedesk/samples';
import { createStorage } from '@framedesk/storage';
import { nearDuplicateSettings, withPublicOnPromotion } from '@framedesk/submissions';

/**
 * `email` deciding through the review service, as the review API would for them: the same rules
 * (claims, visibility, the status machine), and each decision announced to open workbenches.
 */
export async function serviceReviewer(
  db: Database,
  settings: Settings,
  email: string,
): Promise<{ reviewer: SampleReviewer; close(): Promise<void> }> {
  const me = await db.repos.reviewers.findByEmail(email);
  if (!me) throw new Error(`there is no reviewer ${email} to decide the sample frames`);
  const redis = createRedis(settings, 'producer');
  redis.on('error', () => undefined); // announcing is best effort: workbenches also poll
  const changes = reviewChangePublisher(redis, settings.REDIS_PREFIX);
  // A promoted sample gets its `public` variant made by the workers, as any promotion.
  const queues = createQueueProducer(redis, settings.REDIS_PREFIX);
  const review = reviewService({
    db: withPublicOnPromotion(withReviewChanges(db, changes), queues),
    storage: createStorage(settings),
    mediaUrl: (submissionId, name) =>
      signMediaUrl(settings.SESSION_SECRET, { submissionId, name }, new Date(Date.now() + 3600_000)),
    // Deciding never retries processing nor reads queue depths.
    queues: { enqueue: () => Promise.reject(new Error('the demo reviewer does not retry frames')) },
    queueDepths: async () => ({}),
    changes,
    nearDuplicates: nearDuplicateSettings(settings),
  });
  const who = { reviewerId: me.id, email: me.email, role: me.role };
  return {
    reviewer: {
      async promote(id) {
        await review.decide(id, { decision: 'promote' }, who);
      },
      async reject(id, reason, note, regions, moments = []) {
        const timed = moments.length > 0 ? { moments: [...moments] } : {};
        await review.decide(id, { decision: 'reject', reason, note, regions: [...regions], ...timed }, who);
      },
    },
    close: async () => {
      await queues.close();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
