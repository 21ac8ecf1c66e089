import { defineJob } from './job-handler';

/** A promoted image's `public` variant (issue 39): enqueued by every promotion, made here once. */
export const imagePublishJob = defineJob({
  name: 'image.publish',
  async run({ submissionId }, { deps, logger, recordOutcome }) {
    const result = await deps.publicVariant.make(submissionId);
    recordOutcome(result.outcome);
    if (result.outcome === 'skipped') logger.info({ reason: result.reason }, 'public variant not made');
    else logger.info({ outcome: result.outcome }, 'public variant ready');
  },
});
