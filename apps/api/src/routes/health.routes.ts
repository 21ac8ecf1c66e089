import { createHash, timingSafeEqual } from 'node:crypto';
import { Router } from 'express';
import { DomainError } from '@framedesk/domain';
import type { Registry } from '@framedesk/observability';
import { problemBody } from '../http/problem';

export interface ReadinessCheck {
  readonly name: string;
  check(): Promise<unknown>;
}

export interface HealthRoutesOptions {
  /** Where a failed check's reason goes (never into the response: it can name hosts and paths). */
  readonly log: (details: object, message: string) => void;
  /** When set, `/metrics` requires `Authorization: Bearer <token>`. */
  readonly metricsToken?: string | undefined;
}

function sameToken(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Runs every check (2 s each, at once); a failed check's reason goes to `log`, never to the caller. */
export async function runReadinessChecks(
  checks: readonly ReadinessCheck[],
  log: HealthRoutesOptions['log'],
): Promise<(readonly [string, { status: 'ok' | 'unavailable' }])[]> {
  return Promise.all(
    checks.map(async ({ name, check }) => {
      const timeout = new Promise((_, reject) =>
        setTimeout(() => reject(new Error('timed out after 2s')), 2_000).unref(),
      );
      try {
        await Promise.race([check(), timeout]);
        return [name, { status: 'ok' }] as const;
      } catch (error) {
        log({ check: name, err: error }, 'readiness check failed');
        return [name, { status: 'unavailable' }] as const;
      }
    }),
  );
}

/** `/healthz`: the process is up. `/readyz`: PostgreSQL, Redis and storage answer. `/metrics`. */
export function healthRoutes(
  checks: readonly ReadinessCheck[],
  metrics: Registry,
  options: HealthRoutesOptions,
): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const results = await runReadinessChecks(checks, options.log);
    const checked = Object.fromEntries(results);
    if (results.every(([, r]) => r.status === 'ok')) {
      res.json({ status: 'ok', checks: checked });
      return;
    }
    const down = results.filter(([, r]) => r.status !== 'ok').map(([name]) => name);
    const problem = problemBody(
      new DomainError('service_unavailable', `Not ready: ${down.join(', ')} unavailable.`),
      res.locals['requestId'] as string,
    );
    res
      .status(503)
      .type('application/problem+json')
      .send(JSON.stringify({ ...problem, checks: checked }));
  });
  router.get('/metrics', async (req, res) => {
    if (options.metricsToken) {
      const given = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
      if (!given || !sameToken(given, options.metricsToken))
        throw new DomainError('unauthenticated', 'Send "Authorization: Bearer <METRICS_TOKEN>".', {
          headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
        });
    }
    res.type(metrics.contentType).send(await metrics.metrics());
  });
  return router;
}
