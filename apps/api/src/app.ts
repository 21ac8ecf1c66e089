import express from 'express';
import helmet from 'helmet';
import { Histogram, registerReadinessGauge } from '@framedesk/observability';
import { describeStorageProblem } from '@framedesk/storage';
import type { ApiDependencies } from './dependencies';
import { errorHandler, notFoundHandler } from './http/problem';
import { agentCors } from './http/cors';
import { requestContext } from './http/request-context';
import { keyConcurrency } from './http/key-concurrency';
import { mcpRoutes } from './mcp/mcp.routes';
import { agentApiRoutes } from './routes/agent-api.routes';
import { healthRoutes, metricsExposure, type ReadinessCheck, readinessProbe } from './routes/health.routes';
import { providerEventsRoutes } from './routes/provider-events.routes';
import { reviewRoutes } from './routes/review.routes';
import { uploadsRoutes } from './routes/uploads.routes';
import { workbenchRoutes } from './routes/workbench.routes';

/**
 * Cloudflare Stream's player (an iframe) and HLS for the workbench's video detail: Stream's
 * delivery hosts, and the API base's origin when it is not Cloudflare's own (a compatible or
 * local stand-in serves delivery there).
 */
function streamPlayerSources(settings: ApiDependencies['settings']): Record<string, string[]> {
  if (settings.VIDEO_PROVIDER !== 'cloudflare') return {};
  const hosts = [
    "'self'",
    'https://*.cloudflarestream.com',
    'https://videodelivery.net',
    'https://*.videodelivery.net',
  ];
  const base = new URL(settings.CLOUDFLARE_API_BASE).origin;
  if (base !== 'https://api.cloudflare.com') hosts.push(base);
  return { frameSrc: hosts, mediaSrc: hosts };
}

/** The API's HTTP surface: wiring only. Each route file parses, authorizes and delegates. */
export function createApp(deps: ApiDependencies): express.Express {
  const app = express();
  app.disable('x-powered-by');
  const trustProxy = deps.settings.TRUST_PROXY;
  app.set('trust proxy', typeof trustProxy === 'object' ? [...trustProxy] : trustProxy);
  app.set('query parser', 'simple');

  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [deps.metrics],
  });

  app.use(requestContext(deps.logger, latency));
  app.use(
    helmet({
      // Browsers ignore HSTS over plain http, but upgrade-insecure-requests would break a
      // plain-http install (local, or TLS not terminated in front): only ask for it behind TLS.
      contentSecurityPolicy: {
        directives: {
          upgradeInsecureRequests: deps.settings.TRUST_PROXY !== false ? [] : null,
          ...streamPlayerSources(deps.settings),
        },
      },
    }),
  );

  const readiness: ReadinessCheck[] = [
    { name: 'postgres', check: () => deps.db.ping() },
    { name: 'redis', check: () => deps.redis.ping() },
    {
      name: 'storage',
      check: () => deps.storage.ping(deps.config.storage.vendor_originals_bucket),
      explain: (error) =>
        describeStorageProblem(error, deps.storage.driver, deps.config.storage.vendor_originals_bucket).line,
    },
  ];
  const log = (details: object, message: string) => deps.logger.warn(details, message);
  const probe = readinessProbe(readiness, log);
  registerReadinessGauge(deps.metrics, async () => (await probe()).every(([, r]) => r.status === 'ok'));
  app.use(
    healthRoutes(probe, deps.metrics, {
      log,
      exposure: metricsExposure(deps.settings),
      clusterMetrics: deps.clusterMetrics,
    }),
  );

  // Streamed bodies: mounted before any body parser could consume them.
  app.use('/uploads', uploadsRoutes(deps.videoUploads, { store: deps.tusStore, locker: deps.uploadLocker }));
  app.use('/provider-events', providerEventsRoutes(deps.videoProvider, deps.video));

  app.use('/v1', agentCors(deps.settings.CORS_ORIGINS));
  // One count of requests at once per API key for /mcp and the feedback record (issue 43).
  const perKey = keyConcurrency(deps.settings.MCP_CONCURRENT_PER_KEY);
  app.use(agentApiRoutes(deps, perKey));
  app.use('/mcp', mcpRoutes(deps, perKey));
  app.use('/review', reviewRoutes(deps));
  // Last before the 404: the built workbench and its client-route fallback.
  app.use(
    workbenchRoutes(deps.settings.WORKBENCH_DIST, deps.settings.workspaceRoot, (dir) =>
      deps.logger.warn({ dir }, 'no workbench build here: / serves no workbench (npm run build makes it)'),
    ),
  );
  app.use(notFoundHandler);
  app.use(
    errorHandler((error, req, transient) =>
      transient
        ? deps.logger.warn({ err: error, request_id: req.res?.locals['requestId'] }, 'dependency unavailable: 503')
        : deps.logger.error({ err: error, request_id: req.res?.locals['requestId'] }, 'unhandled error'),
    ),
  );
  return app;
}
