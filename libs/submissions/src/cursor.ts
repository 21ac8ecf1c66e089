import { DomainError } from '@framedesk/domain';

/** Opaque list cursors: base64url of the last row's (created_at, id). */
export function encodeCursor(position: { createdAt: Date; id: string }): string {
  return Buffer.from(`${position.createdAt.toISOString()}|${position.id}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const invalid = () =>
    new DomainError('invalid_request', 'The cursor is not one this API issued; pass next_cursor unchanged.');
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw invalid();
  const [at, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (rest.length > 0 || !id || !/^sub_[0-9A-Za-z]+$/.test(id) || Number.isNaN(createdAt.getTime())) throw invalid();
  return { createdAt, id };
}
