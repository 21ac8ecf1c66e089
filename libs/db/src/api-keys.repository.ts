import { randomUUID } from 'node:crypto';
import type { DbClient } from './prisma';

export interface ApiKeyRow {
  readonly id: string;
  readonly agentId: string;
  readonly prefix: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
  /** A rotated key's end of grace. */
  readonly expiresAt: Date | null;
}

export interface ApiKeyWithAgent extends ApiKeyRow {
  readonly agent: { readonly id: string; readonly slug: string; readonly disabledAt: Date | null };
}

const publicFields = {
  id: true,
  agentId: true,
  prefix: true,
  createdAt: true,
  lastUsedAt: true,
  revokedAt: true,
  expiresAt: true,
} as const;

export function apiKeysRepository(db: DbClient) {
  return {
    /** Stores a key by its hash; the key itself is never written anywhere. */
    create: (input: { agentId: string; prefix: string; hash: string }): Promise<ApiKeyRow> =>
      db.apiKey.create({ data: { id: randomUUID(), ...input }, select: publicFields }),
    findByHash: (hash: string): Promise<ApiKeyWithAgent | null> =>
      db.apiKey.findUnique({
        where: { hash },
        select: { ...publicFields, agent: { select: { id: true, slug: true, disabledAt: true } } },
      }),
    listForAgent: (agentId: string): Promise<ApiKeyRow[]> =>
      db.apiKey.findMany({ where: { agentId }, select: publicFields, orderBy: { createdAt: 'asc' } }),
    /** Revokes every key whose display prefix starts with `prefix`; returns how many. */
    async revokeByPrefix(prefix: string, at = new Date()): Promise<ApiKeyRow[]> {
      const keys = await db.apiKey.findMany({
        where: { prefix: { startsWith: prefix }, revokedAt: null },
        select: publicFields,
      });
      if (keys.length !== 1) return keys;
      await db.apiKey.update({ where: { id: keys[0]!.id }, data: { revokedAt: at } });
      return [{ ...keys[0]!, revokedAt: at }];
    },
    /** One write for many keys: callers batch `last_used_at` instead of writing per request. */
    async touchLastUsed(ids: readonly string[], at: Date): Promise<void> {
      if (ids.length === 0) return;
      await db.apiKey.updateMany({ where: { id: { in: [...ids] } }, data: { lastUsedAt: at } });
    },
  };
}
