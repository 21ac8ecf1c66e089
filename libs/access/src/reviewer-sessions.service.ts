import { createHash, timingSafeEqual } from 'node:crypto';
import { DomainError, randomToken, type ReviewerRole } from '@framedesk/domain';
import type { Database, ReviewerRow } from '@framedesk/db';
import { loginThrottle, type ScriptStore } from './login-throttle';
import { hashPassword, verifyPassword } from './passwords';
import { createSemaphore } from './semaphore';

export const SESSION_COOKIE = 'fd_session';
export const CSRF_HEADER = 'X-CSRF-Token';
export interface ReviewerPrincipal {
  readonly kind: 'reviewer';
  readonly reviewerId: string;
  readonly email: string;
  readonly name: string | null;
  /** Read with the session on every request: a change applies to the very next one. */
  readonly role: ReviewerRole;
  /** SHA-256 of the cookie token: the session row's id. */
  readonly sessionId: string;
  readonly csrfToken: string;
  readonly expiresAt: Date;
}

export interface ReviewerSessionsOptions {
  readonly ttlHours: number;
  readonly attemptsPer15Minutes: number;
  /** Password checks (scrypt, 32 MiB and ~0.1 s each) one process runs at once; a few more may wait. */
  readonly concurrentPasswordChecks?: number;
  /** Namespaces the throttle counters (the installation's REDIS_PREFIX). */
  readonly keyPrefix: string;
  /**
   * PASSWORD_LOGIN=false: passwords are refused (403) for everyone but the break-glass admin
   * the operator named, who signs in with a password while the identity provider is away.
   */
  readonly passwordLogin?: { readonly enabled: boolean; readonly breakGlassEmail?: string | undefined };
  readonly now?: () => Date;
}

export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function sameSecret(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
}

/** Reviewer login, cookie sessions and CSRF tokens (DESIGN.md §6). */
export function reviewerSessionsService(db: Database, counters: ScriptStore, options: ReviewerSessionsOptions) {
  const now = options.now ?? (() => new Date());
  // Unknown emails still pay for one scrypt, so response time does not reveal which emails exist.
  let dummyHash: Promise<string> | undefined;
  const throttle = loginThrottle(counters, { keyPrefix: options.keyPrefix, limit: options.attemptsPer15Minutes });
  // Bounds the libuv thread pool time logins take, so a burst cannot stall file I/O for everyone.
  const concurrent = options.concurrentPasswordChecks ?? 2;
  const verifications = createSemaphore(concurrent, concurrent * 4);

  const passwordLogin = options.passwordLogin ?? { enabled: true };
  const breakGlass = passwordLogin.breakGlassEmail?.trim().toLowerCase();

  async function checkPassword(email: string, password: string) {
    const reviewer = email ? await db.repos.reviewers.findByEmail(email) : null;
    // No such reviewer, or one without a password (SSO only, invited): the same scrypt, the same answer.
    const ok = reviewer?.passwordHash
      ? await verifyPassword(password, reviewer.passwordHash)
      : await verifyPassword(password, await (dummyHash ??= hashPassword('framedesk-no-such-reviewer'))).then(
          () => false,
        );
    if (!reviewer || !ok || reviewer.disabledAt) return null;
    // With passwords off only the break-glass account gets through, and only while it is an admin.
    if (!passwordLogin.enabled && reviewer.role !== 'admin') return null;
    return reviewer;
  }

  /** A new session for a reviewer whose identity was proven (password, SSO, invite link). */
  async function open(
    reviewer: Pick<ReviewerRow, 'id' | 'email' | 'name' | 'role'>,
    previousToken?: string,
  ): Promise<{ token: string; principal: ReviewerPrincipal }> {
    if (previousToken) await db.repos.reviewerSessions.delete(hashSessionToken(previousToken));
    const token = randomToken(32);
    const expiresAt = new Date(now().getTime() + options.ttlHours * 3600_000);
    const session = await db.repos.reviewerSessions.create({
      id: hashSessionToken(token),
      reviewerId: reviewer.id,
      csrfToken: randomToken(24),
      expiresAt,
    });
    return {
      token,
      principal: {
        kind: 'reviewer',
        reviewerId: reviewer.id,
        email: reviewer.email,
        name: reviewer.name,
        role: reviewer.role,
        sessionId: session.id,
        csrfToken: session.csrfToken,
        expiresAt,
      },
    };
  }

  return {
    /**
     * Checks the password and opens a new session (a new token at every login, so a token planted
     * before login is worthless). `previousToken`, when given, is ended.
     */
    async login(input: {
      email: string;
      password: string;
      ip: string;
      previousToken?: string;
    }): Promise<{ token: string; principal: ReviewerPrincipal }> {
      const email = input.email.trim().toLowerCase();
      if (!passwordLogin.enabled && email !== breakGlass)
        throw new DomainError('forbidden', 'Password sign-in is turned off here; sign in with single sign-on.');
      const attempt = await throttle.reserve(email, input.ip);
      if (attempt.retryAfter !== null) {
        throw new DomainError('rate_limited', 'Too many failed sign-in attempts. Wait a few minutes and try again.', {
          headers: { 'Retry-After': String(attempt.retryAfter) },
        });
      }
      const release = await verifications.tryAcquire();
      if (!release) {
        await attempt.release('not_evaluated');
        throw new DomainError('service_unavailable', 'Too many sign-ins at once. Try again in a moment.', {
          headers: { 'Retry-After': '1' },
        });
      }
      const reviewer = await checkPassword(email, input.password).finally(release);
      if (!reviewer) throw new DomainError('unauthenticated', 'The email or password is not right.');
      await attempt.release('success');
      return open(reviewer, input.previousToken);
    },

    open,

    /** The reviewer behind a session cookie token, or null (unknown, expired, disabled). */
    async authenticate(token: string | undefined): Promise<ReviewerPrincipal | null> {
      if (!token || token.length > 200) return null;
      const at = now();
      const session = await db.repos.reviewerSessions.findLive(hashSessionToken(token), at);
      if (!session || session.reviewer.disabledAt) return null;
      // last_seen_at at most once a minute per session, not once per request.
      if (at.getTime() - session.lastSeenAt.getTime() > 60_000) await db.repos.reviewerSessions.touch(session.id, at);
      return {
        kind: 'reviewer',
        reviewerId: session.reviewer.id,
        email: session.reviewer.email,
        name: session.reviewer.name,
        role: session.reviewer.role,
        sessionId: session.id,
        csrfToken: session.csrfToken,
        expiresAt: session.expiresAt,
      };
    },

    /** Throws 403 csrf_failed unless `header` carries this session's CSRF token. */
    checkCsrf(principal: ReviewerPrincipal, header: string | undefined): void {
      if (!header || !sameSecret(header, principal.csrfToken)) {
        throw new DomainError('csrf_failed', `Send this session's CSRF token in the ${CSRF_HEADER} header.`);
      }
    },

    logout: (principal: ReviewerPrincipal): Promise<void> => db.repos.reviewerSessions.delete(principal.sessionId),

    deleteExpired: (at: Date = now()): Promise<number> => db.repos.reviewerSessions.deleteExpired(at),
  };
}

export type ReviewerSessionsService = ReturnType<typeof reviewerSessionsService>;
