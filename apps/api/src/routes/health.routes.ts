import { createHash, timingSafeEqual } from 'node:crypto';
import { Router } from 'express';
import { createSemaphore } from '@framedesk/access';
import { DomainError } from '@framedesk/domain';
import type { Registry } from '@framedesk/observability';
import { problemBody } from '../http/problem';

export interface ReadinessCheck {
  readonly name: string;
  check(): Promise<unknown>;
  /**
   * A failure as one line naming the setting and the fix, served in `/readyz`'s detail and logged:
   * it must name no host, path or secret (the raw error goes only to the log).
   */
  explain?(error: unknown): string;
}

export interface ReadinessResult {
  readonly status: 'ok' | 'unavailable';
  readonly detail?: string;
}

export interface HealthRoutesOptions {
  /** Where a failed check's reason goes (never into the response: it can name hosts and paths). */
  readonly log: (details: object, message: string) => void;
  /** Who may read what on `/metrics` (metricsExposure). */
  readonly exposure: MetricsExposure;
  /** The cluster gauges (every channel's name and backlog): served only when `exposure.cluster`. */
  readonly clusterMetrics?: Registry;
}

/**
 * Who may read `/metrics`: with METRICS_TOKEN only a request with it, and then everything; without
 * it anyone, and in production only this process's own metrics, not the cluster gauges (they
 * name every channel and its backlog, which /review/ops refuses to a non-admin). `line` says so,
 * once, at start.
 */
export interface MetricsExposure {
  readonly token?: string | undefined;
  readonly cluster: boolean;
  readonly line: string;
}

export function metricsExposure(settings: {
  readonly NODE_ENV: string;
  readonly METRICS_TOKEN?: string | undefined;
}): MetricsExposure {
  if (settings.METRICS_TOKEN)
    return {
      token: settings.METRICS_TOKEN,
      cluster: true,
      line: '/metrics requires METRICS_TOKEN (Authorization: Bearer), cluster gauges included',
    };
  if (settings.NODE_ENV === 'production')
    return {
      cluster: false,
      line: "/metrics is open (no METRICS_TOKEN): it serves this process's metrics only; the cluster gauges (queues, statuses, every channel's backlog) need METRICS_TOKEN",
    };
  return {
    cluster: true,
    line: `/metrics is open to anyone (no METRICS_TOKEN, NODE_ENV=${settings.NODE_ENV}), cluster gauges with channel names included; production withholds them until METRICS_TOKEN is set`,
  };
}

/** Scrapes of `/metrics` waiting for their turn (one renders at a time); more get 503 at once. */
export const METRICS_SCRAPES_WAITING_MAX = 32;

/** How long `/readyz` (and framedesk_ready) reuse one round of checks. */
export const READINESS_MAX_AGE_MS = 1_500;

function sameToken(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Runs every check (2 s each, at once); a failed check's reason goes to `log`, never to the caller. */
export async function runReadinessChecks(
  checks: readonly ReadinessCheck[],
  log: HealthRoutesOptions['log'],
): Promise<(readonly [string, ReadinessResult])[]> {
  return Promise.all(
    checks.map(async ({ name, check, explain }): Promise<readonly [string, ReadinessResult]> => {
      const timeout = new Promise((_, reject) =>
        setTimeout(() => reject(new Error('timed out after 2s')), 2_000).unref(),
      );
      try {
        await Promise.race([check(), timeout]);
        return [name, { status: 'ok' }];
      } catch (error) {
        const detail = explain?.(error);
        log({ check: name, err: error }, detail ?? 'readiness check failed');
        return [name, detail ? { status: 'unavailable', detail } : { status: 'unavailable' }];
      }
    }),
  );
}

export type ReadinessResults = Awaited<ReturnType<typeof runReadinessChecks>>;

/**
 * The readiness checks, run at most once per `maxAgeMs` (1.5 s): callers meanwhile, those waiting
 * on a round in flight included, share its answer, so a storm of `/readyz` costs the dependencies
 * one ping each per 1.5 s.
 */
export function readinessProbe(
  checks: readonly ReadinessCheck[],
  log: HealthRoutesOptions['log'],
  maxAgeMs = READINESS_MAX_AGE_MS,
  now: () => number = Date.now,
): () => Promise<ReadinessResults> {
  let round: { at: number; results: Promise<ReadinessResults> } | null = null;
  return () => {
    const at = now();
    if (!round || at - round.at >= maxAgeMs) round = { at, results: runReadinessChecks(checks, log) };
    return round.results;
  };
}

/** `/healthz`: the process is up. `/readyz`: PostgreSQL, Redis and storage answer. `/metrics`. */
export function healthRoutes(
  readiness: () => Promise<ReadinessResults>,
  metrics: Registry,
  options: HealthRoutesOptions,
): Router {
  const router = Router();
  const { token, cluster } = options.exposure;
  const clusterMetrics = cluster ? options.clusterMetrics : undefined;
  // One rendering at a time, each after the event loop had its turn: a storm of scrapes queues
  // (up to a bound, then 503) instead of rendering all at once ahead of every other request.
  const renders = createSemaphore(1, METRICS_SCRAPES_WAITING_MAX);
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const results = await readiness();
    const checked = Object.fromEntries(results);
    if (results.every(([, r]) => r.status === 'ok')) {
      res.json({ status: 'ok', checks: checked });
      return;
    }
    const down = results.filter(([, r]) => r.status !== 'ok');
    const why = down.flatMap(([, r]) => (r.detail ? [` ${r.detail}.`] : [])).join('');
    const problem = problemBody(
      new DomainError('service_unavailable', `Not ready: ${down.map(([name]) => name).join(', ')} unavailable.${why}`),
      res.locals['requestId'] as string,
    );
    res
      .status(503)
      .type('application/problem+json')
      .send(JSON.stringify({ ...problem, checks: checked }));
  });
  router.get('/metrics', async (req, res) => {
    if (token) {
      const given = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
      if (!given || !sameToken(given, token))
        throw new DomainError('unauthenticated', 'Send "Authorization: Bearer <METRICS_TOKEN>".', {
          headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
        });
    }
    const release = await renders.tryAcquire();
    if (!release)
      throw new DomainError('service_unavailable', 'Too many scrapes at once; scrape again in a moment.', {
        headers: { 'Retry-After': '1' },
      });
    try {
      await new Promise((resolve) => setImmediate(resolve));
      // Two registries, one exposition: the text format is a list of metric families.
      const [own, shared] = await Promise.all([metrics.metrics(), clusterMetrics?.metrics() ?? '']);
      res.type(metrics.contentType).send(own + shared);
    } finally {
      release();
    }
  });
  return router;
}
