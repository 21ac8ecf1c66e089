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
    /** The key and its agent in one statement (every authenticated request runs this). */
    async findByHash(hash: string): Promise<ApiKeyWithAgent | null> {
      const rows = await db.$queryRaw<(ApiKeyRow & { agentSlug: string; agentDisabledAt: Date | null })[]>`
        SELECT k.id, k.agent_id AS "agentId", k.prefix, k.created_at AS "createdAt", k.last_used_at AS "lastUsedAt",
               k.revoked_at AS "revokedAt", k.expires_at AS "expiresAt", a.slug AS "agentSlug",
               a.disabled_at AS "agentDisabledAt"
          FROM api_keys k JOIN agents a ON a.id = k.agent_id
         WHERE k.hash = ${hash}`;
      const row = rows[0];
      if (!row) return null;
      const { agentSlug, agentDisabledAt, ...key } = row;
      return { ...key, agent: { id: key.agentId, slug: agentSlug, disabledAt: agentDisabledAt } };
    },
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
