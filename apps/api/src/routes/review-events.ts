import type { Server } from 'node:http';
import type { Request, Response } from 'express';
import type { ReviewChangeSubscriber } from '@framedesk/queues';

const HEARTBEAT_TICKS = 15;

/**
 * `GET /review/events`: Server-Sent Events of review changes (status, claim, visibility), each
 * with the id of its entry in the Redis stream, so a reconnecting browser resumes after
 * `Last-Event-ID`. The stream ends when the server stops listening (shutdown).
 */
export function reviewEventsHandler(subscriber: ReviewChangeSubscriber) {
  return async (req: Request, res: Response) => {
    const lastId =
      req.get('last-event-id') ?? (typeof req.query['last_event_id'] === 'string' ? req.query['last_event_id'] : null);
    // Listening before the headers go out: whatever happens after the client sees 200 reaches it.
    const pending: string[] = [];
    let open = false;
    const stop = await subscriber.listen(lastId || null, ({ id, change }) => {
      const event = `id: ${id}\nevent: change\ndata: ${JSON.stringify(change)}\n\n`;
      if (open) res.write(event);
      else pending.push(event);
    });
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.write('retry: 1000\n\n' + pending.join(''));
    open = true;
    const server = (req.socket as { server?: Server }).server;
    let ticks = 0;
    const timer = setInterval(() => {
      if (server && !server.listening) return res.end();
      if (++ticks % HEARTBEAT_TICKS === 0) res.write(': keep-alive\n\n');
    }, 1000);
    res.on('close', () => {
      clearInterval(timer);
      stop();
    });
  };
}
