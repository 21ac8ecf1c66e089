import { defineJob } from './job-handler';

export const imageRederiveJob = defineJob({
  name: 'image.rederive',
  async run({ submissionId }, { deps, logger }) {
    const result = await deps.repair.rederive(submissionId);
    if (result.outcome === 'skipped') logger.info({ reason: result.reason }, 'variants not rendered again');
    else logger.info({ variants: result.variants }, 'variants rendered again');
  },
});
