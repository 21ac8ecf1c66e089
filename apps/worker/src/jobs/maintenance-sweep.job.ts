import { defineJob } from './job-handler';

export const maintenanceSweepJob = defineJob({
  name: 'maintenance.sweep',
  async run(_payload, { deps, logger }) {
    const now = new Date();
    const idempotencyRecords = await deps.db.repos.idempotency.deleteExpired(now);
    const reviewerSessions = await deps.db.repos.reviewerSessions.deleteExpired(now);
    logger.info({ idempotencyRecords, reviewerSessions }, 'swept expired records');
  },
});
