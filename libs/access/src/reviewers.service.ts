import { randomUUID } from 'node:crypto';
import { DomainError, type ReviewerRole } from '@framedesk/domain';
import type { Database, Repositories, ReviewerRow } from '@framedesk/db';
import { hashPassword } from './passwords';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MIN_PASSWORD_LENGTH = 10;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function assertPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH)
    throw new DomainError('validation_failed', `The password must have at least ${MIN_PASSWORD_LENGTH} characters.`);
  if (password.length > 1024) throw new DomainError('validation_failed', 'The password is too long (1024 at most).');
}

export interface NewReviewerInput {
  readonly email: string;
  /** None: the account signs in through SSO, or sets a password from an invite link. */
  readonly password?: string;
  readonly name?: string;
  /** `reviewer` unless told otherwise. */
  readonly role?: ReviewerRole;
  /** Slugs of existing channels the reviewer is a member of from the start. */
  readonly channels?: readonly string[];
}

/** The ids of channels named by slug; an unknown one is refused (nothing is created). */
export async function channelIds(repos: Repositories, slugs: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const slug of new Set(slugs)) {
    const channel = await repos.channels.findBySlug(slug);
    if (!channel) throw new DomainError('not_found', `no channel ${slug}`);
    ids.push(channel.id);
  }
  return ids;
}

/**
 * Creates a reviewer account, recorded in account_events (`created`, with role and channels) by
 * `actor`. New accounts are `reviewer` with no channels unless told otherwise.
 */
export async function createReviewer(
  db: Database,
  input: NewReviewerInput,
  actor = 'system',
): Promise<ReviewerRow & { channels: string[] }> {
  const email = normalizeEmail(input.email);
  if (!EMAIL.test(email)) throw new DomainError('validation_failed', `"${input.email}" is not an email address.`);
  if (input.password !== undefined) assertPassword(input.password);
  const passwordHash = input.password !== undefined ? await hashPassword(input.password) : null;
  const role = input.role ?? 'reviewer';
  const channels = [...new Set(input.channels ?? [])].sort();
  try {
    const reviewer = await db.transaction(async (repos) => {
      if (await repos.reviewers.findByEmail(email))
        throw new DomainError('already_exists', `a reviewer ${email} already exists`);
      const created = await repos.reviewers.create({
        id: randomUUID(),
        email,
        passwordHash,
        name: input.name ?? null,
        role,
        channelIds: await channelIds(repos, channels),
      });
      await repos.accounts.record(
        'reviewer',
        created.id,
        'created',
        { actor, at: created.createdAt },
        { role, channels },
      );
      return created;
    });
    return { ...reviewer, channels };
  } catch (error) {
    // Two creations of one email at once: the unique index decides, the loser hears it plainly.
    if ((error as { code?: string }).code === 'P2002')
      throw new DomainError('already_exists', `a reviewer ${email} already exists`);
    throw error;
  }
}
