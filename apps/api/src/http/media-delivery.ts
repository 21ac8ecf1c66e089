import type { Request, RequestHandler, Response } from 'express';
import type { Readable } from 'node:stream';
import type { RateLimiter } from '@framedesk/access';
import { DomainError } from '@framedesk/domain';
import type { Logger } from '@framedesk/observability';
import type { ByteRange } from '@framedesk/storage';

/** A stored media object to send: its type, size, and its bytes (all, or only a range) from storage. */
export interface DeliverableMedia {
  readonly contentType: string;
  readonly byteSize: number;
  open(range?: ByteRange): Promise<Readable>;
}

/**
 * One `bytes=start-end`, `bytes=start-` or `bytes=-suffix` range (what video players ask for);
 * anything else (several ranges, an unsatisfiable one) gets the whole body.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | null {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '') || size === 0) return null;
  const start = match[1] === '' ? Math.max(0, size - Number(match[2])) : Number(match[1]);
  const end = match[1] === '' || match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  return start <= end && start < size ? { start, end } : null;
}

/**
 * Sends `media` with `Accept-Ranges`; a `Range` request gets 206 and only its bytes, read as a
 * range from storage (a `bytes=-1` of a 4 GiB original reads one byte, not the file).
 */
export async function sendMedia(req: Request, res: Response, media: DeliverableMedia): Promise<void> {
  const range = parseRange(req.get('range'), media.byteSize);
  const stream = await media.open(range ?? undefined);
  res.setHeader('Content-Type', media.contentType);
  res.setHeader('Accept-Ranges', 'bytes');
  stream.on('error', () => res.destroy());
  res.on('close', () => stream.destroy());
  if (!range) {
    res.setHeader('Content-Length', String(media.byteSize));
  } else {
    res.status(206);
    res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${media.byteSize}`);
    res.setHeader('Content-Length', String(range.end - range.start + 1));
  }
  stream.pipe(res);
}

/**
 * Rate limit of the media routes (`MEDIA_RATE_LIMIT_PER_MINUTE`), per reviewer (or per client
 * address for links issued to an agent); 429 with `Retry-After` past it. A Redis failure lets
 * requests through, as the agents' limit does.
 */
export function rateLimitMedia(
  limiter: RateLimiter,
  logger: Logger,
  subjectOf: (req: Request, res: Response) => string,
): RequestHandler {
  return async (req, res, next) => {
    let decision;
    try {
      decision = await limiter.hit(`media:${subjectOf(req, res)}`);
    } catch (error) {
      logger.warn({ err: error, request_id: res.locals['requestId'] }, 'media rate limiter unavailable; failing open');
      next();
      return;
    }
    if (!decision.allowed) {
      throw new DomainError(
        'rate_limited',
        `At most ${decision.limit} media requests per minute per reviewer; retry after ${decision.resetSeconds} s.`,
        { headers: { 'Retry-After': String(decision.resetSeconds) } },
      );
    }
    next();
  };
}
