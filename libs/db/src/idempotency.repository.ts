import type { DbClient, Prisma } from './prisma';

export interface IdempotencyRecordRow {
  readonly apiKeyId: string;
  readonly key: string;
  readonly fingerprint: string;
  readonly state: string;
  readonly responseStatus: number | null;
  readonly responseBody: unknown;
  readonly lockedUntil: Date;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

export interface IdempotencyClaimInput {
  readonly apiKeyId: string;
  readonly key: string;
  readonly fingerprint: string;
  readonly now: Date;
  /** How long the claim blocks a retry if the request dies without completing. */
  readonly lockMs: number;
  readonly retentionMs: number;
}

/**
 * `claimed`: this request owns the key; `lockedUntil` is its ownership token (complete and
 * release compare against it, so a request whose lock was taken over cannot complete).
 */
export type IdempotencyClaim =
  | { readonly kind: 'claimed'; readonly lockedUntil: Date }
  | { readonly kind: 'completed'; readonly fingerprint: string; readonly status: number; readonly body: unknown }
  | { readonly kind: 'in_flight'; readonly fingerprint: string; readonly lockedUntil: Date };

export function idempotencyRepository(db: DbClient) {
  const find = (apiKeyId: string, key: string): Promise<IdempotencyRecordRow | null> =>
    db.idempotencyRecord.findUnique({ where: { apiKeyId_key: { apiKeyId, key } } });

  return {
    find,
    /**
     * Atomic claim: INSERT … ON CONFLICT DO NOTHING, never select-then-insert. An existing
     * record is taken over (compare-and-set on its lock) when it has expired, or when it is in
     * flight for the same request past its lock: a crashed request never blocks a retry.
     */
    async claim(input: IdempotencyClaimInput): Promise<IdempotencyClaim> {
      for (let attempt = 0; attempt < 3; attempt++) {
        const lockedUntil = new Date(input.now.getTime() + input.lockMs);
        const { count } = await db.idempotencyRecord.createMany({
          data: [
            {
              apiKeyId: input.apiKeyId,
              key: input.key,
              fingerprint: input.fingerprint,
              state: 'in_flight',
              lockedUntil,
              createdAt: input.now,
              expiresAt: new Date(input.now.getTime() + input.retentionMs),
            },
          ],
          skipDuplicates: true,
        });
        if (count === 1) return { kind: 'claimed', lockedUntil };
        const existing = await find(input.apiKeyId, input.key);
        if (!existing) continue; // swept between our insert and read: try again
        const expired = existing.expiresAt <= input.now;
        const abandoned =
          existing.state === 'in_flight' &&
          existing.lockedUntil <= input.now &&
          existing.fingerprint === input.fingerprint;
        if (expired || abandoned) {
          // A new token strictly later than the old one, so the old owner's compare-and-set fails.
          const token = new Date(Math.max(lockedUntil.getTime(), existing.lockedUntil.getTime() + 1));
          const taken = await db.idempotencyRecord.updateMany({
            where: {
              apiKeyId: input.apiKeyId,
              key: input.key,
              lockedUntil: existing.lockedUntil,
              state: existing.state,
            },
            data: {
              fingerprint: input.fingerprint,
              state: 'in_flight',
              responseStatus: null,
              responseBody: undefined,
              lockedUntil: token,
              createdAt: input.now,
              expiresAt: new Date(input.now.getTime() + input.retentionMs),
            },
          });
          if (taken.count === 1) return { kind: 'claimed', lockedUntil: token };
          continue;
        }
        if (existing.state === 'completed') {
          return {
            kind: 'completed',
            fingerprint: existing.fingerprint,
            status: existing.responseStatus ?? 200,
            body: existing.responseBody,
          };
        }
        return { kind: 'in_flight', fingerprint: existing.fingerprint, lockedUntil: existing.lockedUntil };
      }
      throw new Error('idempotency claim did not settle after 3 attempts');
    },
    /** Stores the response; false when this request no longer owns the key. Run it in the transaction that does the work. */
    async complete(input: {
      apiKeyId: string;
      key: string;
      lockedUntil: Date;
      status: number;
      body: unknown;
    }): Promise<boolean> {
      const { count } = await db.idempotencyRecord.updateMany({
        where: { apiKeyId: input.apiKeyId, key: input.key, lockedUntil: input.lockedUntil, state: 'in_flight' },
        data: { state: 'completed', responseStatus: input.status, responseBody: input.body as Prisma.InputJsonValue },
      });
      return count === 1;
    },
    /** Forgets an unfinished claim (the request failed before doing work), so a retry can proceed. */
    async release(input: { apiKeyId: string; key: string; lockedUntil: Date }): Promise<void> {
      await db.idempotencyRecord.deleteMany({
        where: { apiKeyId: input.apiKeyId, key: input.key, lockedUntil: input.lockedUntil, state: 'in_flight' },
      });
    },
    /** The sweeper: deletes records past their retention; returns how many. */
    async deleteExpired(now: Date): Promise<number> {
      const { count } = await db.idempotencyRecord.deleteMany({ where: { expiresAt: { lte: now } } });
      return count;
    },
  };
}
