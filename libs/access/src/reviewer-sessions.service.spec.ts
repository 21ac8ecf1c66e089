import { describe, expect, it } from 'vitest';
import type { Database } from '@framedesk/db';
import { DomainError } from '@framedesk/domain';
import { hashPassword } from './passwords';
import type { ScriptStore } from './login-throttle';
import { hashSessionToken, reviewerSessionsService } from './reviewer-sessions.service';

/** Runs the throttle's two scripts (reserve: INCRBY every key; release) on a Map. */
function memoryCounters(): ScriptStore & { values: Map<string, number> } {
  const values = new Map<string, number>();
  return {
    values,
    eval: async (script, numKeys, ...args) => {
      const keys = args.slice(0, numKeys).map(String);
      if (script.includes("'INCRBY'")) {
        const by = Number(args[numKeys + 1] ?? 1);
        return keys.flatMap((k) => {
          values.set(k, (values.get(k) ?? 0) + by);
          return [values.get(k)!, 600_000];
        });
      }
      keys.forEach((k, i) => {
        if (i === 0 && args[numKeys] === '1') values.delete(k);
        else if ((values.get(k) ?? 0) > 0) values.set(k, values.get(k)! - 1);
      });
      return 1;
    },
  };
}

async function fakeDb() {
  const reviewer = {
    id: 'r1',
    email: 'a@example.com',
    name: null,
    passwordHash: await hashPassword('right password'),
    createdAt: new Date(),
    disabledAt: null,
  };
  const sessions: { id: string; csrfToken: string }[] = [];
  const db = {
    repos: {
      reviewers: { findByEmail: async (email: string) => (email === reviewer.email ? reviewer : null) },
      reviewerSessions: {
        create: async (row: { id: string; csrfToken: string; expiresAt: Date }) => {
          sessions.push(row);
          return { ...row, createdAt: new Date(), lastSeenAt: new Date(), reviewerId: 'r1' };
        },
        delete: async () => undefined,
      },
    },
  } as unknown as Database;
  return { db, sessions };
}

describe('reviewer sessions', () => {
  it('stores only the hash of the session token and issues a CSRF token', async () => {
    const { db, sessions } = await fakeDb();
    const service = reviewerSessionsService(db, memoryCounters(), {
      ttlHours: 1,
      attemptsPer15Minutes: 3,
      keyPrefix: 't',
    });
    const { token, principal } = await service.login({
      email: ' A@example.com ',
      password: 'right password',
      ip: '10.0.0.1',
    });
    expect(sessions[0]!.id).toBe(hashSessionToken(token));
    expect(sessions[0]!.id).not.toContain(token);
    expect(() => service.checkCsrf(principal, principal.csrfToken)).not.toThrow();
    expect(() => service.checkCsrf(principal, undefined)).toThrow(DomainError);
    expect(() => service.checkCsrf(principal, 'x' + principal.csrfToken)).toThrow(DomainError);
  });

  it('counts failures per (email, address) and per address and refuses past the limit', async () => {
    const { db } = await fakeDb();
    const counters = memoryCounters();
    const service = reviewerSessionsService(db, counters, { ttlHours: 1, attemptsPer15Minutes: 2, keyPrefix: 't' });
    const attempt = (password: string, ip = '10.0.0.1', email = 'a@example.com') =>
      service.login({ email, password, ip }).then(
        () => 'ok',
        (e: DomainError) => e.code,
      );
    expect(await attempt('wrong')).toBe('unauthenticated');
    expect(await attempt('wrong', '10.0.0.2', 'nobody@example.com')).toBe('unauthenticated');
    expect(await attempt('wrong')).toBe('unauthenticated');
    expect(await attempt('right password')).toBe('rate_limited');
    // Failures from one address do not lock the reviewer out from another.
    expect(await attempt('right password', '10.0.0.9')).toBe('ok');
    expect(await attempt('wrong', '10.0.0.9')).toBe('unauthenticated');
    expect(await attempt('wrong', '10.0.0.9')).toBe('unauthenticated');
    expect(await attempt('right password', '10.0.0.9')).toBe('rate_limited');
  });
});
