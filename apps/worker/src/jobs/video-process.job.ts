import { UnrecoverableError } from '@framedesk/queues';
import { defineJob } from './job-handler';

/**
 * Local provider: ffprobe the original, make a poster → needs_review / promoted, or a permanent
 * failure (invalid_video, duration_exceeded). Cloudflare: ask Stream; while it still works on
 * the video the service schedules the next poll itself, with back-off.
 */
export const videoProcessJob = defineJob({
  name: 'video.process',
  carriesSubmission: true,
  async run({ submissionId }, { deps, logger, origin, recordOutcome }) {
    const outcome = await deps.video.processVideo(submissionId, origin);
    recordOutcome(outcome);
    switch (outcome) {
      case 'failed': {
        const submission = await deps.db.repos.submissions.findById(submissionId);
        const failure = { code: submission?.failureCode, message: submission?.failureMessage };
        logger.warn({ failure }, 'video failed permanently');
        // Recorded on the submission already; the job ends failed without retries.
        throw new UnrecoverableError(`${failure.code ?? 'failed'}: ${failure.message ?? ''}`);
      }
      case 'skipped':
        logger.debug('video job skipped: the submission is not in the video pipeline');
        return;
      case 'waiting':
      case 'processing':
        logger.info({ outcome }, 'video not ready yet; polling again later');
        return;
      case 'needs_review':
      case 'promoted':
      case 'rejected':
        logger.info({ status: outcome }, 'video processed');
        return;
    }
  },
});
