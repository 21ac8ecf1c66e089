import { createHash } from 'node:crypto';
import { DomainError, randomToken } from '@framedesk/domain';
import type { ApiKeyRow, Database } from '@framedesk/db';

export const API_KEY_PREFIX = 'fd_live_';
/** Characters of the key shown in listings (`fd_live_` + 8). */
const DISPLAY_LENGTH = API_KEY_PREFIX.length + 8;
const KEY_PATTERN = /^fd_live_[0-9A-Za-z]{33}$/;

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A new key: 192 random bits. Only its hash and display prefix are stored. */
export function generateApiKey(): { key: string; prefix: string; hash: string } {
  const key = API_KEY_PREFIX + randomToken(24);
  return { key, prefix: key.slice(0, DISPLAY_LENGTH), hash: hashApiKey(key) };
}

export interface AgentPrincipal {
  readonly kind: 'agent';
  readonly apiKeyId: string;
  readonly agentId: string;
  readonly agentSlug: string;
}

export function apiKeysService(db: Database, options: { lastUsedFlushMs?: number } = {}) {
  // last_used_at is written in batches, not once per request.
  const pending = new Set<string>();
  const flushMs = options.lastUsedFlushMs ?? 30_000;
  let timer: NodeJS.Timeout | undefined;
  const flush = async () => {
    timer = undefined;
    if (pending.size === 0) return;
    const ids = [...pending];
    pending.clear();
    await db.repos.apiKeys.touchLastUsed(ids, new Date());
  };

  return {
    async issue(agentId: string): Promise<{ key: string; row: ApiKeyRow }> {
      const generated = generateApiKey();
      const row = await db.repos.apiKeys.create({ agentId, prefix: generated.prefix, hash: generated.hash });
      return { key: generated.key, row };
    },

    /** The principal behind `Authorization: Bearer <key>`, or 401. Revoked keys fail at once. */
    async authenticate(header: string | undefined): Promise<AgentPrincipal> {
      const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
      if (!match)
        throw unauthenticated(
          header ? 'The Authorization header must be "Bearer <API key>".' : 'Send "Authorization: Bearer <API key>".',
        );
      const key = match[1]!;
      if (!KEY_PATTERN.test(key)) throw unauthenticated('The API key is not valid.');
      const found = await db.repos.apiKeys.findByHash(hashApiKey(key));
      if (!found || found.revokedAt || (found.expiresAt && found.expiresAt <= new Date()))
        throw unauthenticated('The API key is not valid.');
      // A disabled agent's keys are valid but refused: 403, so its operator knows the key is not the problem.
      if (found.agent.disabledAt) throw new DomainError('forbidden', `Agent "${found.agent.slug}" is disabled.`);
      pending.add(found.id);
      timer ??= setTimeout(() => void flush().catch(() => undefined), flushMs).unref();
      return { kind: 'agent', apiKeyId: found.id, agentId: found.agent.id, agentSlug: found.agent.slug };
    },

    /** Writes pending last_used_at values now (on shutdown). */
    async flushLastUsed(): Promise<void> {
      if (timer) clearTimeout(timer);
      await flush();
    },
  };
}

export type ApiKeysService = ReturnType<typeof apiKeysService>;

function unauthenticated(detail: string): DomainError {
  return new DomainError('unauthenticated', detail, { headers: { 'WWW-Authenticate': 'Bearer realm="framedesk"' } });
}
