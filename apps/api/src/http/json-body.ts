import type { Request } from 'express';
import { DomainError } from '@framedesk/domain';

/** The parsed JSON body; anything but `Content-Type: application/json` is refused (415), which a cross-site form cannot send. */
export function requireJson(req: Request): Record<string, unknown> {
  if (!req.is('application/json'))
    throw new DomainError('unsupported_media_type', 'Send a JSON body (Content-Type: application/json).');
  return (req.body ?? {}) as Record<string, unknown>;
}
