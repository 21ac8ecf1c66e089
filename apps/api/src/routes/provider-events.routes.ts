import express, { Router } from 'express';
import { DomainError } from '@framedesk/domain';
import type { VideoService } from '@framedesk/submissions';
import { InvalidNotificationError, type VideoProvider } from '@framedesk/video-provider';

/**
 * `POST /provider-events/vendor-stream`: Cloudflare Stream's webhook. The signature is checked on
 * the raw bytes before anything is parsed; a forged or stale one changes nothing (401). A replay
 * is harmless: the status machine refuses a second identical transition.
 */
export function providerEventsRoutes(provider: VideoProvider, video: VideoService): Router {
  const router = Router();
  router.post('/vendor-stream', express.raw({ type: () => true, limit: '1mb' }), async (req, res) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    let notification;
    try {
      notification = provider.parseNotification(raw, req.headers);
    } catch (error) {
      if (error instanceof InvalidNotificationError) throw new DomainError('invalid_signature', error.message);
      throw new DomainError('invalid_request', 'The notification body is not a Stream video object.', { cause: error });
    }
    const outcome = await video.applyProviderNotification(notification);
    res.status(200).json({ received: true, outcome });
  });
  return router;
}
