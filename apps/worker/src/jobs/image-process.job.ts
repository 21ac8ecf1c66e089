import { UnrecoverableError } from '@framedesk/queues';
import { defineJob, type WorkerDeps } from './job-handler';

/**
 * Tests only (`WORKER_TEST_CRASH_SUBMISSION`, ignored unless NODE_ENV=test): the process dies as
 * a native crash or the kernel's OOM killer would end it, with nothing cleaned up or reported —
 * when the image would really be decoded, that is while it is still in the pipeline.
 */
async function crashIfTestPoison(deps: WorkerDeps, submissionId: string): Promise<void> {
  const { NODE_ENV, WORKER_TEST_CRASH_SUBMISSION } = deps.settings;
  if (NODE_ENV !== 'test' || WORKER_TEST_CRASH_SUBMISSION !== submissionId) return;
  const status = (await deps.db.repos.submissions.findById(submissionId))?.status;
  if (status === 'received' || status === 'media_processing') process.kill(process.pid, 'SIGKILL');
}

export const imageProcessJob = defineJob({
  name: 'image.process',
  carriesSubmission: true,
  async run({ submissionId }, { deps, logger, recordOutcome, cpuSlot }) {
    await crashIfTestPoison(deps, submissionId);
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
