import { defineJob } from './job-handler';

export const maintenanceRetentionJob = defineJob({
  name: 'maintenance.retention',
  async run(_payload, { deps, logger }) {
    // One run works at most one interval: the next scheduled run goes on where it stopped.
    const report = await deps.retention.run({ maxMs: deps.settings.RETENTION_INTERVAL_SECONDS * 1000 });
    const level = report.purged > 0 || report.providerSkipped > 0 ? 'info' : 'debug';
    logger[level](
      {
        purged: report.purged,
        objects: report.objects,
        bytes: report.bytes,
        providerVideos: report.providerVideos,
        providerSkipped: report.providerSkipped,
        batches: report.batches,
        complete: report.complete,
        channels: report.channels,
      },
      'retention purge',
    );
  },
});
