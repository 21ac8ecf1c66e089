import { createHash } from 'node:crypto';
import { DomainError } from '@framedesk/domain';
import type { Database, ReviewerRow } from '@framedesk/db';
import { hashPassword } from './passwords';
import { assertPassword } from './reviewers.service';
import { openValue, sealValue } from './signed-values';

const PURPOSE = 'reviewer-invite';

/** Changes when the password does: a link stops working once a password has been chosen with it. */
const passwordState = (hash: string | null) =>
  createHash('sha256')
    .update(hash ?? 'none')
    .digest('base64url')
    .slice(0, 16);

export interface InvitesOptions {
  readonly secret: string;
  readonly ttlHours: number;
  /** The workbench's public address (`api.base_url`). */
  readonly baseUrl: string;
  /**
   * PASSWORD_LOGIN: with `false` an invite sets no password and opens no session; the invited
   * person signs in through the identity provider (matched by email), which accepts the invite.
   */
  readonly passwordLogin?: boolean;
  readonly now?: () => Date;
}

/**
 * Invite links without outgoing mail: an admin creates the account and hands the person a
 * one-time link (`/welcome#invite=…`, the token in the fragment so it is never sent to a server
 * log) to choose a password. The link is signed, expires, and stops working once a password is
 * set, so no table of invites is kept.
 */
export function invitesService(db: Database, options: InvitesOptions) {
  const now = options.now ?? (() => new Date());

  async function reviewerOf(token: string): Promise<ReviewerRow> {
    const payload = openValue(options.secret, PURPOSE, token, now());
    const id = typeof payload?.['r'] === 'string' ? payload['r'] : null;
    const reviewer = id ? await db.repos.reviewers.findById(id) : null;
    if (!reviewer || reviewer.disabledAt || payload?.['p'] !== passwordState(reviewer.passwordHash))
      throw new DomainError('not_found', 'This invite link is not valid any more; ask an admin for a new one.');
    return reviewer;
  }

  return {
    /** A link for a reviewer without a password, recorded as `invited` by `actor`. */
    async issue(reviewer: ReviewerRow, actor: string): Promise<{ url: string; expires_at: string }> {
      if (reviewer.passwordHash)
        throw new DomainError('validation_failed', `${reviewer.email} has a password already; no invite is needed.`);
      const at = now();
      const expiresAt = new Date(at.getTime() + options.ttlHours * 3600_000);
      const token = sealValue(options.secret, PURPOSE, { r: reviewer.id, p: passwordState(null) }, expiresAt);
      await db.repos.accounts.record(
        'reviewer',
        reviewer.id,
        'invited',
        { actor, at },
        {
          expires_at: expiresAt.toISOString(),
        },
      );
      return {
        url: new URL(`/welcome#invite=${token}`, options.baseUrl).toString(),
        expires_at: expiresAt.toISOString(),
      };
    },

    /** Whose invite this is (the welcome screen greets them). */
    async preview(token: string): Promise<{ email: string }> {
      return { email: (await reviewerOf(token)).email };
    },

    /**
     * Sets the password the invite was for; the caller then opens a session. Refused (403) while
     * password sign-in is off: the link is then accepted by signing in with single sign-on.
     */
    async accept(token: string, password: string): Promise<ReviewerRow> {
      if (options.passwordLogin === false)
        throw new DomainError(
          'forbidden',
          'Password sign-in is turned off here: accept this invite by signing in with single sign-on.',
        );
      assertPassword(password);
      const reviewer = await reviewerOf(token);
      const hash = await hashPassword(password);
      const set = await db.transaction((repos) =>
        repos.accounts.setFirstPassword(reviewer.id, hash, { actor: 'invite', at: now() }),
      );
      if (!set) throw new DomainError('not_found', 'This invite link has been used already.');
      return { ...reviewer, passwordHash: hash };
    },
  };
}

export type InvitesService = ReturnType<typeof invitesService>;
