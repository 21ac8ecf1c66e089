import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CloudflareVideo } from './cloudflare.provider';

export interface FakeCloudflareRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/**
 * A local stand-in for the Cloudflare Stream API, speaking the documented requests and
 * `{ success, errors, messages, result }` envelopes, so driver tests never touch the internet.
 * It validates what Cloudflare validates (token, maxDurationSeconds, expiry window, tus headers).
 */
export interface FakeCloudflare {
  /** `CLOUDFLARE_API_BASE` for the driver, e.g. http://127.0.0.1:1234/client/v4 */
  readonly apiBase: string;
  readonly accountId: string;
  readonly apiToken: string;
  readonly requests: FakeCloudflareRequest[];
  readonly videos: Map<string, CloudflareVideo>;
  /** The settings that point Framedesk's `cloudflare` provider here, its webhooks signed with `webhookSecret`. */
  settings(webhookSecret: string): Record<string, string>;
  /** Sets a video's state as Stream would report it. */
  setVideo(uid: string, change: Partial<CloudflareVideo>): void;
  /**
   * Marks a video ready as Stream does: `thumbnail` (served here, public, the given image),
   * `playback.hls`, `preview`, and the embeddable player at `<origin>/<uid>/iframe`. Returns it.
   */
  readyVideo(
    uid: string,
    options: { duration: number; width: number; height: number; thumbnail: Buffer; thumbnailType?: string },
  ): CloudflareVideo;
  close(): Promise<void>;
}

const envelope = (result: unknown) => JSON.stringify({ success: true, errors: [], messages: [], result });
const failure = (code: number, message: string) =>
  JSON.stringify({ success: false, errors: [{ code, message }], messages: [], result: null });

function parseTusMetadata(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (header ?? '').split(',')) {
    const [key, value] = pair.trim().split(' ');
    if (key) out[key] = Buffer.from(value ?? '', 'base64').toString('utf8');
  }
  return out;
}

function checkLimits(maxDuration: unknown, expiry: unknown, now: number): string | null {
  const duration = Number(maxDuration);
  if (!Number.isInteger(duration) || duration < 1 || duration > 21_600)
    return 'maxDurationSeconds must be an integer 1–21600';
  if (expiry === undefined) return null;
  if (typeof expiry !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(expiry))
    return 'expiry must be RFC 3339';
  const ahead = (Date.parse(expiry) - now) / 1000;
  // Cloudflare: at least 2 minutes and at most 6 hours ahead (a few seconds of slack for the clock).
  if (ahead < 115 || ahead > 21_600 + 5) return `expiry must be 2 min – 6 h ahead (is ${Math.round(ahead)} s)`;
  return null;
}

type Send = (status: number, payload: string, headers?: Record<string, string>) => void;

/** The fake's state: the videos and thumbnails it holds, and the origin its URLs point at. */
class FakeStream {
  readonly requests: FakeCloudflareRequest[] = [];
  readonly videos = new Map<string, CloudflareVideo>();
  readonly thumbnails = new Map<string, { body: Buffer; type: string }>();
  origin = '';

  constructor(
    readonly accountId: string,
    readonly apiToken: string,
  ) {}

  get prefix(): string {
    return `/client/v4/accounts/${this.accountId}/stream`;
  }

  newVideo(maxDurationSeconds: number): CloudflareVideo {
    const uid = randomBytes(16).toString('hex');
    const video: CloudflareVideo & { maxDurationSeconds: number } = {
      uid,
      readyToStream: false,
      status: { state: 'pendingupload' },
      duration: -1,
      input: { width: -1, height: -1 },
      maxDurationSeconds,
    };
    this.videos.set(uid, video);
    return video;
  }

  /** Public delivery URLs (no token), as on customer-<code>.cloudflarestream.com. */
  deliver(url: URL, res: ServerResponse): boolean {
    const match = /^\/([0-9a-f]{32})\/(thumbnails\/thumbnail\.jpg|iframe|manifest\/video\.m3u8)$/.exec(url.pathname);
    if (!match || !this.videos.has(match[1]!)) return false;
    const [, uid, what] = match;
    const thumbnail = this.thumbnails.get(uid!);
    if (what === 'iframe') {
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<!doctype html><title>Stream player</title><video controls poster="/${uid}/thumbnails/thumbnail.jpg"></video>`,
        );
    } else if (what === 'manifest/video.m3u8') {
      res.writeHead(200, { 'content-type': 'application/vnd.apple.mpegurl' }).end('#EXTM3U\n');
    } else if (thumbnail) {
      res.writeHead(200, { 'content-type': thumbnail.type }).end(thumbnail.body);
    } else return false;
    return true;
  }

  handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    const url = new URL(req.url ?? '/', this.origin);
    if (req.method === 'GET' && this.deliver(url, res)) return;
    this.requests.push({
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body,
    });
    const send: Send = (status, payload, headers = {}) =>
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(payload);
    if (req.headers.authorization !== `Bearer ${this.apiToken}`)
      return send(401, failure(10000, 'Authentication error'));
    if (!url.pathname.startsWith(this.prefix)) return send(404, failure(7003, 'Could not route to the requested path'));
    const rest = url.pathname.slice(this.prefix.length);
    if (req.method === 'POST' && rest === '/direct_upload') return this.directUpload(body, send);
    if (req.method === 'POST' && rest === '' && url.searchParams.get('direct_user') === 'true')
      return this.tusCreate(req, res, send);
    this.video(req.method ?? '', rest.slice(1), send);
  }

  /** POST /stream/direct_upload: a one-shot upload URL. */
  private directUpload(body: string, send: Send): void {
    let input: { maxDurationSeconds?: unknown; expiry?: unknown };
    try {
      input = JSON.parse(body) as typeof input;
    } catch {
      return send(400, failure(10005, 'Invalid JSON'));
    }
    const problem = checkLimits(input.maxDurationSeconds, input.expiry, Date.now());
    if (problem) return send(400, failure(10005, problem));
    const video = this.newVideo(Number(input.maxDurationSeconds));
    send(200, envelope({ uploadURL: `${this.origin}/upload/${video.uid}`, uid: video.uid }));
  }

  /** POST /stream?direct_user=true: a tus creation, answered with the upload's Location. */
  private tusCreate(req: IncomingMessage, res: ServerResponse, send: Send): void {
    if (req.headers['tus-resumable'] !== '1.0.0') return send(412, failure(10000, 'Tus-Resumable 1.0.0 required'));
    const length = Number(req.headers['upload-length']);
    if (!Number.isInteger(length) || length < 1) return send(400, failure(10005, 'Upload-Length required'));
    const meta = parseTusMetadata(req.headers['upload-metadata'] as string | undefined);
    const problem = checkLimits(meta['maxDurationSeconds'], meta['expiry'], Date.now());
    if (problem) return send(400, failure(10005, problem));
    const video = this.newVideo(Number(meta['maxDurationSeconds']));
    res
      .writeHead(201, {
        'tus-resumable': '1.0.0',
        location: `${this.origin}/tus/${video.uid}?tusv2=true`,
        'stream-media-id': video.uid,
      })
      .end();
  }

  /** GET or DELETE /stream/<uid>. */
  private video(method: string, uid: string, send: Send): void {
    const video = /^[0-9a-f]{32}$/.test(uid) ? this.videos.get(uid) : undefined;
    if (!video) return send(404, failure(10003, 'Not Found'));
    if (method === 'GET') return send(200, envelope(video));
    if (method === 'DELETE') {
      this.videos.delete(uid);
      return send(200, envelope(''));
    }
    send(405, failure(10000, 'Method not allowed'));
  }

  readyVideo(uid: string, options: Parameters<FakeCloudflare['readyVideo']>[1]): CloudflareVideo {
    const video = this.videos.get(uid);
    if (!video) throw new Error(`fake Cloudflare has no video ${uid}`);
    this.thumbnails.set(uid, { body: options.thumbnail, type: options.thumbnailType ?? 'image/jpeg' });
    const ready: CloudflareVideo = {
      ...video,
      readyToStream: true,
      status: { state: 'ready' },
      duration: options.duration,
      input: { width: options.width, height: options.height },
      thumbnail: `${this.origin}/${uid}/thumbnails/thumbnail.jpg`,
      playback: { hls: `${this.origin}/${uid}/manifest/video.m3u8` },
    };
    this.videos.set(uid, ready);
    return ready;
  }
}

export async function startFakeCloudflare(
  options: { accountId?: string; apiToken?: string } = {},
): Promise<FakeCloudflare> {
  const stream = new FakeStream(options.accountId ?? 'acct_fake', options.apiToken ?? 'token_fake');
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => stream.handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stream.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const apiBase = `${stream.origin}/client/v4`;

  return {
    apiBase,
    accountId: stream.accountId,
    apiToken: stream.apiToken,
    requests: stream.requests,
    videos: stream.videos,
    settings: (webhookSecret) => ({
      VIDEO_PROVIDER: 'cloudflare',
      CLOUDFLARE_API_BASE: apiBase,
      CLOUDFLARE_ACCOUNT_ID: stream.accountId,
      CLOUDFLARE_API_TOKEN: stream.apiToken,
      CLOUDFLARE_WEBHOOK_SECRET: webhookSecret,
    }),
    setVideo(uid, change) {
      const video = stream.videos.get(uid);
      if (!video) throw new Error(`fake Cloudflare has no video ${uid}`);
      stream.videos.set(uid, { ...video, ...change });
    },
    readyVideo: (uid, readyOptions) => stream.readyVideo(uid, readyOptions),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
