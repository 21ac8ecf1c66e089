import {
  type CreateUploadInput,
  type ProviderNotification,
  type ProviderVideoState,
  type UploadSession,
  type VideoProvider,
  VideoProviderError,
} from './video-provider';
import { verifyWebhookSignature } from './webhook-signature';

/** Cloudflare Stream's hard bounds (REFERENCE.md): expiry 2 min – 6 h ahead; duration ≤ 6 h. */
export const CLOUDFLARE_MIN_EXPIRY_SECONDS = 120;
export const CLOUDFLARE_MAX_EXPIRY_SECONDS = 21_600;
export const CLOUDFLARE_MAX_DURATION_SECONDS = 21_600;

export interface CloudflareProviderOptions {
  /** e.g. https://api.cloudflare.com/client/v4 */
  readonly apiBase: string;
  readonly accountId: string;
  readonly apiToken: string;
  readonly webhookSecret?: string;
  /** Notifications whose `time` is further than this from now are refused (replays). */
  readonly webhookMaxAgeSeconds?: number;
  readonly fetch?: typeof fetch;
  readonly now?: () => Date;
  readonly timeoutMs?: number;
}

interface Envelope<T> {
  readonly success: boolean;
  readonly errors?: readonly { code?: number; message?: string }[];
  readonly result?: T;
}

/** The parts of Stream's video object we read. */
export interface CloudflareVideo {
  readonly uid: string;
  readonly readyToStream?: boolean;
  readonly status?: {
    state?: string;
    errorReasonCode?: string;
    errReasonCode?: string;
    errorReasonText?: string;
    errReasonText?: string;
  };
  readonly duration?: number;
  readonly size?: number;
  readonly thumbnail?: string;
  readonly input?: { width?: number; height?: number };
  readonly playback?: { hls?: string; dash?: string };
}

const FAILURE_CODES: Readonly<Record<string, string>> = {
  ERR_DURATION_EXCEED_CONSTRAINT: 'duration_exceeded',
  ERR_NON_VIDEO: 'invalid_video',
  ERR_MALFORMED_VIDEO: 'invalid_video',
  ERR_DURATION_TOO_SHORT: 'invalid_video',
};

/** Stream's `status.state` mapped onto our statuses (REFERENCE.md). */
export function mapCloudflareVideo(video: CloudflareVideo): ProviderVideoState {
  const state = video.status?.state;
  switch (state) {
    case 'pendingupload':
      return { state: 'waiting_for_upload' };
    case 'downloading':
    case 'queued':
    case 'inprogress':
      return { state: 'media_processing' };
    case 'ready':
      return {
        state: 'ready',
        ...(video.duration !== undefined && video.duration >= 0 ? { durationSeconds: video.duration } : {}),
        ...(video.input?.width && video.input.width > 0 ? { width: video.input.width } : {}),
        ...(video.input?.height && video.input.height > 0 ? { height: video.input.height } : {}),
        ...(video.size !== undefined ? { byteSize: video.size } : {}),
        ...(video.thumbnail ? { thumbnailUrl: video.thumbnail } : {}),
        ...(video.playback?.hls ? { playbackUrl: video.playback.hls } : {}),
      };
    case 'error': {
      const reason = video.status?.errorReasonCode ?? video.status?.errReasonCode ?? 'unknown';
      const text = video.status?.errorReasonText ?? video.status?.errReasonText ?? '';
      return {
        state: 'failed',
        failureCode: FAILURE_CODES[reason] ?? 'provider_error',
        failureMessage: `Cloudflare Stream refused the video (${reason})${text ? `: ${text}` : ''}`,
      };
    }
    default:
      // An unknown state is not an answer: treat it as still processing and ask again later.
      return { state: 'media_processing' };
  }
}

function b64(value: string): string {
  return Buffer.from(value, 'utf8').toString('base64');
}

/** RFC 3339 without milliseconds, the form Cloudflare's examples use. */
function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Cloudflare Stream: direct creator uploads (basic), tus creation (large files), polling, signed webhooks. */
export function createCloudflareVideoProvider(options: CloudflareProviderOptions): VideoProvider {
  const doFetch = options.fetch ?? fetch;
  const base = `${options.apiBase.replace(/\/+$/, '')}/accounts/${encodeURIComponent(options.accountId)}/stream`;
  const auth = { Authorization: `Bearer ${options.apiToken}` };
  const timeoutMs = options.timeoutMs ?? 15_000;
  const now = options.now ?? (() => new Date());

  async function call(url: string, init: RequestInit): Promise<Response> {
    try {
      return await doFetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      throw new VideoProviderError(`Cloudflare Stream unreachable: ${(error as Error).message}`);
    }
  }

  async function envelope<T>(response: Response, what: string): Promise<T> {
    const body = (await response.json().catch(() => null)) as Envelope<T> | null;
    if (!response.ok || !body?.success || body.result === undefined) {
      const reason =
        body?.errors?.map((e) => `${e.code ?? ''} ${e.message ?? ''}`.trim()).join('; ') || `HTTP ${response.status}`;
      throw new VideoProviderError(`Cloudflare Stream ${what} failed: ${reason}`, response.status);
    }
    return body.result;
  }

  const maxDuration = (input: CreateUploadInput) =>
    Math.min(
      CLOUDFLARE_MAX_DURATION_SECONDS,
      Math.max(1, Math.floor(input.maxDurationSeconds ?? CLOUDFLARE_MAX_DURATION_SECONDS)),
    );

  return {
    name: 'cloudflare',
    async createUpload(input: CreateUploadInput): Promise<UploadSession> {
      const meta = { name: input.filename, submission_id: input.submissionId, upload_id: input.uploadId };
      if (input.protocol === 'basic') {
        const response = await call(`${base}/direct_upload`, {
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json' },
          body: JSON.stringify({ maxDurationSeconds: maxDuration(input), expiry: rfc3339(input.expiresAt), meta }),
        });
        const result = await envelope<{ uploadURL?: string; uid?: string }>(response, 'direct upload');
        if (!result.uploadURL || !result.uid)
          throw new VideoProviderError('Cloudflare Stream direct upload answered without uploadURL/uid');
        return { uploadUrl: result.uploadURL, providerRef: result.uid };
      }
      const metadata = [
        `maxDurationSeconds ${b64(String(maxDuration(input)))}`,
        `expiry ${b64(rfc3339(input.expiresAt))}`,
        `name ${b64(input.filename)}`,
        `filetype ${b64(input.contentType)}`,
      ].join(',');
      const response = await call(`${base}?direct_user=true`, {
        method: 'POST',
        headers: {
          ...auth,
          'Tus-Resumable': '1.0.0',
          'Upload-Length': String(input.byteSize),
          'Upload-Metadata': metadata,
        },
      });
      const location = response.headers.get('location');
      const uid = response.headers.get('stream-media-id');
      if (response.status !== 201 || !location || !uid) {
        const detail = await response.text().catch(() => '');
        throw new VideoProviderError(
          `Cloudflare Stream tus creation failed: HTTP ${response.status} ${detail.slice(0, 200)}`,
          response.status,
        );
      }
      return { uploadUrl: location, providerRef: uid };
    },
    async getVideo(providerRef: string): Promise<ProviderVideoState> {
      const response = await call(`${base}/${encodeURIComponent(providerRef)}`, { headers: auth });
      if (response.status === 404) {
        return {
          state: 'failed',
          failureCode: 'provider_error',
          failureMessage: 'Cloudflare Stream no longer knows this video',
        };
      }
      return mapCloudflareVideo(await envelope<CloudflareVideo>(response, 'video lookup'));
    },
    async deleteVideo(providerRef: string): Promise<void> {
      const response = await call(`${base}/${encodeURIComponent(providerRef)}`, { method: 'DELETE', headers: auth });
      if (!response.ok && response.status !== 404)
        throw new VideoProviderError(`Cloudflare Stream delete failed: HTTP ${response.status}`, response.status);
    },
    parseNotification(rawBody, headers): ProviderNotification {
      const header = headers['webhook-signature'];
      verifyWebhookSignature({
        secret: options.webhookSecret,
        rawBody,
        header: Array.isArray(header) ? header[0] : header,
        now: now(),
        maxAgeSeconds: options.webhookMaxAgeSeconds ?? 300,
      });
      const video = JSON.parse(rawBody.toString('utf8')) as CloudflareVideo;
      if (!video || typeof video.uid !== 'string')
        throw new VideoProviderError('notification without a video uid', 400);
      return { providerRef: video.uid, video: mapCloudflareVideo(video) };
    },
  };
}
