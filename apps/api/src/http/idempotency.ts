import { createHash } from 'node:crypto';
import type { Request } from 'express';
import type { Database } from '@framedesk/db';
import { DomainError } from '@framedesk/domain';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The request's Idempotency-Key: a UUID, bare (interface document) or quoted (IETF draft). */
export function idempotencyKeyOf(req: Request): string {
  const raw = req.get('idempotency-key');
  if (raw === undefined || raw.trim() === '') {
    throw new DomainError(
      'idempotency_key_required',
      'Send an "Idempotency-Key: <UUID>" header, and reuse it when retrying this request.',
    );
  }
  const value = raw.trim().replace(/^"(.*)"$/, '$1');
  if (!UUID.test(value))
    throw new DomainError(
      'invalid_idempotency_key',
      'The Idempotency-Key must be a UUID, e.g. "6f1c1c1e-8d5b-4c4a-9b3e-2a1e5d7c9f00".',
    );
  return value.toLowerCase();
}

/** JSON with sorted keys, so equal payloads hash equally whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Method + path + a hash of the parsed request (never the raw multipart body). */
export function fingerprintOf(method: string, path: string, parsed: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n${canonical(parsed)}`)
    .digest('hex');
}

export interface IdempotencyOptions {
  readonly apiKeyId: string;
  readonly key: string;
  readonly fingerprint: string;
  /** How long an unfinished claim blocks retries (a crashed request's lock then expires). */
  readonly lockMs: number;
  readonly retentionMs: number;
}

export interface IdempotentResult {
  readonly status: number;
  readonly body: unknown;
  readonly replayed: boolean;
}

/**
 * Claims the key, runs `work`, and replays a completed answer. `work` must complete the claim in
 * its own transaction; if it throws, the claim is released so a retry can proceed (Stripe: a
 * request that did no work is not stored).
 */
export async function runIdempotent(
  db: Database,
  options: IdempotencyOptions,
  work: (token: { apiKeyId: string; key: string; lockedUntil: Date }) => Promise<{ status: number; body: unknown }>,
): Promise<IdempotentResult> {
  const claim = await db.repos.idempotency.claim({ ...options, now: new Date() });
  switch (claim.kind) {
    case 'completed':
      if (claim.fingerprint !== options.fingerprint) throw reused();
      return { status: claim.status, body: claim.body, replayed: true };
    case 'in_flight':
      if (claim.fingerprint !== options.fingerprint) throw reused();
      throw new DomainError(
        'idempotency_key_in_use',
        'The first request with this Idempotency-Key is still being processed; retry shortly with the same key.',
        {
          headers: { 'Retry-After': '1' },
        },
      );
    case 'claimed': {
      const token = { apiKeyId: options.apiKeyId, key: options.key, lockedUntil: claim.lockedUntil };
      try {
        const result = await work(token);
        return { ...result, replayed: false };
      } catch (error) {
        await db.repos.idempotency.release(token).catch(() => undefined);
        throw error;
      }
    }
  }
}

function reused(): DomainError {
  return new DomainError(
    'idempotency_key_reused',
    'This Idempotency-Key was already used for a different request; use a new key for a new request.',
  );
}
