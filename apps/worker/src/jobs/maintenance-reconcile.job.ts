import { defineJob } from './job-handler';

export const maintenanceReconcileJob = defineJob({
  name: 'maintenance.reconcile',
  async run(_payload, { deps, logger }) {
    const report = await deps.reconciler.run();
    for (const item of report.requeued)
      logger.warn(
        { submissionId: item.submissionId, requeued: item.job },
        're-enqueued a submission without a live job',
      );
    logger.debug({ requeued: report.requeued.length, live: report.live }, 'reconciled');
  },
});
