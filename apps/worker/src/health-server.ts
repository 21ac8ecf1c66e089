import { createServer, type Server } from 'node:http';
import type { Registry } from '@framedesk/observability';
import type { WorkerReadinessReport } from '@framedesk/queues';

/**
 * The worker's only HTTP: `/healthz` (liveness: the process runs), `/readyz` (200 when every
 * configured queue is consumed, else 503 with each queue's reason) and `/metrics`.
 */
export function startHealthServer(options: {
  host: string;
  port: number;
  metrics: Registry;
  healthy: () => boolean;
  /** The latest readiness check; null while starting. */
  readiness: () => WorkerReadinessReport | null;
}): Server {
  const server = createServer((req, res) => {
    if (req.url === '/healthz') {
      const ok = options.healthy();
      res
        .writeHead(ok ? 200 : 503, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: ok ? 'ok' : 'stopping' }));
      return;
    }
    if (req.url === '/readyz') {
      const report = options.readiness();
      const ready =
        options.healthy() &&
        report !== null &&
        Object.values(report.queues).every((queue) => queue.status === 'consuming');
      res
        .writeHead(ready ? 200 : 503, { 'content-type': 'application/json' })
        .end(
          JSON.stringify(
            report
              ? { status: ready ? 'ready' : 'unavailable', checked_at: report.checkedAt, queues: report.queues }
              : { status: 'starting', queues: {} },
          ),
        );
      return;
    }
    if (req.url === '/metrics') {
      options.metrics.metrics().then(
        (body) => res.writeHead(200, { 'content-type': options.metrics.contentType }).end(body),
        () => res.writeHead(500).end(),
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 404 }));
  });
  server.listen(options.port, options.host);
  return server;
}
