import { defineJob } from './job-handler';

export const maintenanceRetentionJob = defineJob({
  name: 'maintenance.retention',
  async run(_payload, { deps, logger }) {
    // One run works at most one interval: the next scheduled run goes on where it stopped.
    const report = await deps.retention.run({ maxMs: deps.settings.RETENTION_INTERVAL_SECONDS * 1000 });
    // A deletion that failed (a provider copy refused) stays pending and is tried again next run: said at warn.
    const level = report.pending > 0 ? 'warn' : report.purged > 0 || report.providerSkipped > 0 ? 'info' : 'debug';
    logger[level](
      {
        purged: report.purged,
        objects: report.objects,
        bytes: report.bytes,
        providerVideos: report.providerVideos,
        providerSkipped: report.providerSkipped,
        pending: report.pending,
        batches: report.batches,
        complete: report.complete,
        channels: report.channels,
      },
      'retention purge',
    );
  },
});
