import { randomUUID } from 'node:crypto';
import { DomainError } from '@framedesk/domain';
import type { Database } from '@framedesk/db';
import { hashPassword } from './passwords';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MIN_PASSWORD_LENGTH = 10;

export async function createReviewer(db: Database, input: { email: string; password: string; name?: string }) {
  const email = input.email.trim().toLowerCase();
  if (!EMAIL.test(email)) throw new DomainError('validation_failed', `"${input.email}" is not an email address.`);
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    throw new DomainError('validation_failed', `The password must have at least ${MIN_PASSWORD_LENGTH} characters.`);
  }
  return db.repos.reviewers.create({
    id: randomUUID(),
    email,
    passwordHash: await hashPassword(input.password),
    name: input.name ?? null,
  });
}
