import { UnrecoverableError } from '@framedesk/queues';
import { defineJob } from './job-handler';

export const imageProcessJob = defineJob({
  name: 'image.process',
  carriesSubmission: true,
  async run({ submissionId }, { deps, logger, recordOutcome, cpuSlot }) {
    const result = await deps.images.process(submissionId, cpuSlot ? { cpuSlot } : {});
    recordOutcome(result.outcome);
    switch (result.outcome) {
      case 'skipped':
        logger.info({ reason: result.reason }, 'image job skipped');
        return;
      case 'failed':
        logger.warn({ failure: { code: result.code, message: result.message } }, 'image failed permanently');
        // Recorded on the submission already; the job ends failed without retries.
        throw new UnrecoverableError(`${result.code}: ${result.message}`);
      case 'needs_review':
      case 'promoted':
      case 'rejected':
        logger.info(
          { status: result.outcome, width: result.width, height: result.height, variants: result.variants },
          'image processed',
        );
        return;
    }
  },
});
