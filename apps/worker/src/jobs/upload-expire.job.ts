import { expireUpload } from '@framedesk/submissions';
import { defineJob } from './job-handler';

export const uploadExpireJob = defineJob({
  name: 'upload.expire',
  async run({ submissionId, uploadId }, { deps, logger, origin }) {
    if (deps.settings.VIDEO_PROVIDER !== 'local') {
      // The provider may hold the bytes although no notification came: ask it before failing.
      logger.info({ outcome: await deps.video.expireUpload(submissionId, origin) }, 'provider upload expiry checked');
      return;
    }
    // Deletes the session's partial bytes too (tus partial, basic spool file): they count against
    // the agent's quota until then.
    const result = await expireUpload(deps.db, submissionId, uploadId, new Date(), deps.uploadPartials);
    switch (result.outcome) {
      case 'early':
        // Delayed jobs may fire a little early (clock skew between hosts): try again at expiry.
        await deps.queues.enqueueRerun('upload.expire', { submissionId, uploadId }, { at: result.expiresAt, origin });
        logger.info({ expiresAt: result.expiresAt }, 'upload not expired yet');
        return;
      case 'expired':
        logger.info('upload expired');
        return;
      case 'skipped':
        logger.debug({ reason: result.reason }, 'upload expiry skipped');
        return;
    }
  },
});
