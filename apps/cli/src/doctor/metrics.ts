import type { Settings } from '@framedesk/config';
import { type CheckResult, ok, warn } from './check-result';

const FIX = 'set METRICS_TOKEN and give it to Prometheus (authorization in ops/prometheus/prometheus.yml)';

/** Whether the API's /metrics is open to anyone, and what it then shows (docs/operations.md). */
export function checkMetrics(settings: Pick<Settings, 'NODE_ENV' | 'METRICS_TOKEN'>): CheckResult {
  if (settings.METRICS_TOKEN) return ok('metrics', '/metrics requires METRICS_TOKEN');
  if (settings.NODE_ENV === 'production')
    return warn(
      'metrics',
      "/metrics is open to anyone (no METRICS_TOKEN): it serves the process's metrics only, the cluster gauges (queues, statuses, channel backlogs) are withheld",
      FIX,
    );
  return warn(
    'metrics',
    `/metrics is open to anyone (no METRICS_TOKEN, NODE_ENV=${settings.NODE_ENV}), with every channel's name and backlog`,
    FIX,
  );
}
