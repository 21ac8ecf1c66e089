import { Router } from 'express';
import { accountsService, type InvitesService } from '@framedesk/access';
import type { Database } from '@framedesk/db';
import { DomainError, isReviewerRole, isSlug, type ReviewerRole } from '@framedesk/domain';
import { requireAdmin, reviewerOf } from '../http/reviewer-session';
import { requireJson } from '../http/json-body';

const invalid = (pointer: string, detail: string) =>
  new DomainError('validation_failed', detail, { errors: [{ pointer, detail }] });

function roleOf(body: Record<string, unknown>): ReviewerRole | undefined {
  const role = body['role'];
  if (role === undefined) return undefined;
  if (!isReviewerRole(role)) throw invalid('/role', 'role is admin or reviewer.');
  return role;
}

function channelsOf(body: Record<string, unknown>): string[] | undefined {
  const channels = body['channels'];
  if (channels === undefined) return undefined;
  if (!Array.isArray(channels) || channels.length > 1000 || !channels.every((c) => typeof c === 'string' && isSlug(c)))
    throw invalid('/channels', 'channels is a list of channel slugs.');
  return channels as string[];
}

/**
 * `/review/people`: the People screen (admins only). Every change is recorded in account_events
 * with `workbench:<admin email>` as its actor and reaches the person's open streams at once.
 */
export function peopleRoutes(deps: { db: Database; invites: InvitesService; passwordLogin: boolean }): Router {
  const router = Router();
  router.use('/people', requireAdmin);
  const accountsOf = (res: Parameters<typeof reviewerOf>[0]) =>
    accountsService(deps.db, `workbench:${reviewerOf(res).email}`);

  router.get('/people', async (_req, res) => {
    res.json({ people: await accountsOf(res).listReviewers() });
  });

  /**
   * Invite by email without sending mail: the account is created (`reviewer`, no channels unless
   * given), and with password sign-in on, a one-time link to choose a password comes back for the
   * admin to hand over. With SSO only, the account is simply there when the person first signs in.
   */
  router.post('/people', async (req, res) => {
    const body = requireJson(req);
    const email = typeof body['email'] === 'string' ? body['email'] : '';
    if (!email) throw invalid('/email', 'Give the email address of the person to invite.');
    const role = roleOf(body);
    const channels = channelsOf(body);
    const name = typeof body['name'] === 'string' && body['name'].trim() ? body['name'].trim() : undefined;
    const accounts = accountsOf(res);
    const created = await accounts.createReviewer({
      email,
      ...(role ? { role } : {}),
      ...(channels ? { channels } : {}),
      ...(name ? { name } : {}),
    });
    const invite = deps.passwordLogin ? await invites(created.id, res) : null;
    res.status(201).json({ person: await accounts.person(created.id), invite });
  });

  const invites = async (id: string, res: Parameters<typeof reviewerOf>[0]) => {
    const reviewer = await deps.db.repos.reviewers.findById(id);
    if (!reviewer) throw new DomainError('not_found', `no reviewer ${id}`);
    return deps.invites.issue(reviewer, `workbench:${reviewerOf(res).email}`);
  };

  router.post('/people/:id/invite', async (req, res) => {
    if (!deps.passwordLogin)
      throw new DomainError('validation_failed', 'Password sign-in is off: people sign in with single sign-on.');
    res.json({ invite: await invites(String(req.params['id']), res) });
  });

  /** `{ role?, disabled?, channels? }`: channels is the whole new list (added and removed recorded one by one). */
  router.patch('/people/:id', async (req, res) => {
    const body = requireJson(req);
    const id = String(req.params['id']);
    const role = roleOf(body);
    const channels = channelsOf(body);
    const disabled = body['disabled'];
    if (disabled !== undefined && typeof disabled !== 'boolean')
      throw invalid('/disabled', 'disabled is true or false.');
    const accounts = accountsOf(res);
    if (role) await accounts.setReviewerRole(id, role);
    if (channels) await accounts.setReviewerChannels(id, channels);
    if (disabled !== undefined) await accounts.setReviewerDisabled(id, disabled);
    res.json({ person: await accounts.person(id) });
  });

  return router;
}
