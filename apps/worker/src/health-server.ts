import { createServer, type Server } from 'node:http';
import type { Registry } from '@framedesk/observability';

/** The worker's only HTTP: `/healthz` and `/metrics` for orchestrators and Prometheus. */
export function startHealthServer(options: {
  host: string;
  port: number;
  metrics: Registry;
  healthy: () => boolean;
}): Server {
  const server = createServer((req, res) => {
    if (req.url === '/healthz') {
      const ok = options.healthy();
      res
        .writeHead(ok ? 200 : 503, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: ok ? 'ok' : 'stopping' }));
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
