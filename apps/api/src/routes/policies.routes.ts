import express, { type Request, Router } from 'express';
import type { Settings } from '@framedesk/config';
import type { Database } from '@framedesk/db';
import { DomainError, isSlug } from '@framedesk/domain';
import { policyAdmin, simulatePolicy, simulationSince } from '@framedesk/policies';
import { clientGone, concurrencyLimit } from '../http/concurrency-limit';
import { requireJson } from '../http/json-body';
import { requireAdmin, reviewerOf } from '../http/reviewer-session';

/** The policy routes' paths: the review API's 16 kB body limit does not apply to them (see below). */
export const POLICY_PATH = /^\/channels\/[^/]+\/policy(\/|$)/;

/** 50 rules of 2,000-character conditions fit; larger is a 413 payload_too_large. */
const POLICY_BODY_LIMIT = '160kb';

function slugOf(req: Request): string {
  const slug = String(req.params['slug']);
  if (!isSlug(slug)) throw new DomainError('not_found', `No channel "${slug}".`);
  return slug;
}

/** `{ "policy": { "rules": [...] } }`: the file as `framedesk policy set` reads it. */
function policyOf(req: Request): unknown {
  const body = requireJson(req);
  if (!('policy' in body)) {
    const detail = 'Send the policy as {"policy": {"rules": [...]}}.';
    throw new DomainError('validation_failed', detail, { errors: [{ pointer: '/policy', detail }] });
  }
  return body['policy'];
}

/**
 * `/review/channels/:slug/policy`: the Policies screen (admins only; 403 for a reviewer). The same
 * validation, store and simulation as `framedesk policy set|show|clear|simulate`; each change is
 * recorded in policy_changes with `workbench:<admin email>` as who. Workers see a change within
 * their policy cache's check interval (it compares versions), as after the CLI.
 */
export function policiesRoutes(deps: {
  db: Database;
  limits: Pick<Settings, 'SIMULATE_CONCURRENT' | 'SIMULATE_DEADLINE_SECONDS'>;
}): Router {
  const admin = policyAdmin(deps.db);
  const router = Router();
  // A simulation reads up to a year of history: a few at once per process (the place is taken
  // before its body is read and kept until the answer is sent or the client goes away), a
  // deadline, and it stops when its client goes away.
  const simulations = concurrencyLimit(deps.limits.SIMULATE_CONCURRENT, 'policy simulations (SIMULATE_CONCURRENT)');
  router.post('/channels/:slug/policy/simulate', requireAdmin, simulations);
  // Only an admin's body is read, and up to a whole policy (the review API's other bodies stay at 16 kB).
  router.use('/channels/:slug/policy', requireAdmin, express.json({ limit: POLICY_BODY_LIMIT }));
  const who = (res: Parameters<typeof reviewerOf>[0]) => `workbench:${reviewerOf(res).email}`;

  // A stored policy that no longer compiles (after a library upgrade) says so, with its problems:
  // its channel's frames are held for people until it is set again (docs/policies.md).
  router.get('/channels/:slug/policy', async (req, res) => {
    const slug = slugOf(req);
    const row = await admin.show(slug);
    const problems = row ? await admin.problems(slug) : null;
    res.json(
      row
        ? {
            policy: row.policy,
            version: row.version,
            updated_at: row.updatedAt.toISOString(),
            updated_by: row.updatedBy,
            ...(problems ? { compiles: false, problems } : {}),
          }
        : { policy: null },
    );
  });

  router.post('/channels/:slug/policy/check', async (req, res) => {
    const { policy } = await admin.check(slugOf(req), policyOf(req));
    res.json({ ok: true, rules: policy.file.rules.length });
  });

  router.put('/channels/:slug/policy', async (req, res) => {
    const set = await admin.set(slugOf(req), policyOf(req), who(res));
    res.json({ policy: set.file, version: set.version });
  });

  router.delete('/channels/:slug/policy', async (req, res) => {
    res.json({ cleared: await admin.clear(slugOf(req), who(res)) });
  });

  router.post('/channels/:slug/policy/simulate', async (req, res) => {
    const since = simulationSince(requireJson(req)['since'] ?? '30d', new Date());
    const { channel, policy } = await admin.check(slugOf(req), policyOf(req));
    const result = await simulatePolicy(deps.db, {
      channelId: channel.id,
      channelSlug: channel.slug,
      policy,
      since,
      signal: clientGone(res),
      deadlineMs: deps.limits.SIMULATE_DEADLINE_SECONDS * 1000,
    });
    res.json(result);
  });

  return router;
}
