import { errorFromResponse, FramedeskError } from './errors';
import { backoffMs, isRetryable, type RetryPolicy, withRetries } from './retry';
import type { MediaUpload } from './types';

export const TUS_VERSION = '1.0.0';
/** 5 MiB: Cloudflare's minimum tus chunk (all but the last), and a multiple of 256 KiB. */
export const DEFAULT_CHUNK_SIZE = 5 * 1024 * 1024;

export interface UploadProgress {
  readonly bytesSent: number;
  readonly bytesTotal: number;
}

export interface UploadVideoOptions {
  readonly onProgress?: (progress: UploadProgress) => void;
  /** Bytes per tus PATCH (default 5 MiB). */
  readonly chunkSize?: number;
  /** Sent as the file name and type of the upload (default: `video`, the Blob's type or `application/octet-stream`). */
  readonly filename?: string;
  readonly contentType?: string;
  /**
   * The tus upload address from an earlier, interrupted `uploadVideo` call (its `url`), when the
   * client had to create the tus upload itself; by default `upload.upload_url` is used.
   */
  readonly tusUrl?: string;
  readonly signal?: AbortSignal;
}

export interface UploadResult {
  readonly protocol: 'basic' | 'tus';
  readonly bytesTotal: number;
  /** Where the bytes went (for tus: the upload resource, usable as `tusUrl` to resume). */
  readonly url: string;
}

export type UploadTarget = Pick<MediaUpload, 'upload_url'> & {
  readonly upload_protocol?: MediaUpload['upload_protocol'];
};

export function toBlob(data: Blob | Uint8Array, type = ''): Blob {
  return data instanceof Blob ? data : new Blob([data as Uint8Array<ArrayBuffer>], { type });
}

/**
 * Sends the media to `upload_url`. Never sends the API key: the address carries its own
 * one-time credential and may belong to the video provider.
 */
export async function uploadMedia(
  fetchFn: typeof fetch,
  policy: RetryPolicy,
  upload: UploadTarget,
  data: Blob | Uint8Array,
  options: UploadVideoOptions = {},
): Promise<UploadResult> {
  const blob = toBlob(data, options.contentType ?? 'application/octet-stream');
  return upload.upload_protocol === 'tus'
    ? uploadTus(fetchFn, policy, options.tusUrl ?? upload.upload_url, blob, options)
    : uploadBasic(fetchFn, policy, upload.upload_url, blob, options);
}

async function uploadBasic(
  fetchFn: typeof fetch,
  policy: RetryPolicy,
  url: string,
  blob: Blob,
  options: UploadVideoOptions,
): Promise<UploadResult> {
  const type = options.contentType ?? (blob.type || 'application/octet-stream');
  const file = blob.type === type ? blob : blob.slice(0, blob.size, type);
  options.onProgress?.({ bytesSent: 0, bytesTotal: blob.size });
  let sent = 0;
  const send = () => {
    sent++;
    const form = new FormData();
    form.append('file', file, options.filename ?? 'video');
    return fetchFn(url, { method: 'POST', body: form, signal: options.signal });
  };
  try {
    await withRetries(send, policy, options.signal);
  } catch (error) {
    // A retry that finds the session complete means an earlier attempt's bytes did arrive.
    if (!(error instanceof FramedeskError && error.code === 'upload_already_completed' && sent > 1)) throw error;
  }
  options.onProgress?.({ bytesSent: blob.size, bytesTotal: blob.size });
  return { protocol: 'basic', bytesTotal: blob.size, url };
}

type HeadResult = { readonly offset: number } | { readonly missing: true } | { readonly completed: true };

async function tusHead(
  fetchFn: typeof fetch,
  policy: RetryPolicy,
  url: string,
  signal?: AbortSignal,
): Promise<HeadResult> {
  try {
    const response = await withRetries(
      () => fetchFn(url, { method: 'HEAD', headers: { 'Tus-Resumable': TUS_VERSION }, signal }),
      policy,
      signal,
      // 423: another request (a PATCH cut by a crash, for a few seconds) still holds the upload.
      (error) => isRetryable(error) || error.status >= 500 || error.status === 423,
    );
    const offset = Number(response.headers.get('upload-offset'));
    if (!Number.isSafeInteger(offset) || offset < 0) {
      throw new FramedeskError({
        status: response.status,
        code: 'invalid_response',
        detail: 'The tus HEAD answer has no valid Upload-Offset.',
      });
    }
    return { offset };
  } catch (error) {
    // A creation endpoint is not an upload resource yet: HEAD there is 404 (or 405).
    if (error instanceof FramedeskError && (error.status === 404 || error.status === 405)) return { missing: true };
    // A HEAD answer has no body to carry a code; on an upload session, 409 means it is complete
    // (a busy upload is 423).
    if (error instanceof FramedeskError && error.status === 409) return { completed: true };
    if (error instanceof FramedeskError && error.status === 410 && error.code === 'http_410') {
      throw new FramedeskError({
        status: 410,
        code: 'upload_expired',
        detail: 'The upload session has expired or is gone.',
      });
    }
    throw error;
  }
}

function b64(value: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(value)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

async function tusCreate(
  fetchFn: typeof fetch,
  policy: RetryPolicy,
  url: string,
  blob: Blob,
  options: UploadVideoOptions,
): Promise<string> {
  const metadata = [
    `filename ${b64(options.filename ?? 'video')}`,
    `filetype ${b64(options.contentType ?? (blob.type || 'application/octet-stream'))}`,
  ];
  const response = await withRetries(
    () =>
      fetchFn(url, {
        method: 'POST',
        headers: {
          'Tus-Resumable': TUS_VERSION,
          'Upload-Length': String(blob.size),
          'Upload-Metadata': metadata.join(','),
        },
        signal: options.signal,
      }),
    policy,
    options.signal,
  );
  const location = response.headers.get('location');
  if (!location)
    throw new FramedeskError({
      status: response.status,
      code: 'invalid_response',
      detail: 'The tus creation answer has no Location.',
    });
  const created = new URL(location, url);
  // The session's one-time credential travels in the query; keep it when Location drops it.
  const original = new URL(url);
  if (!created.search && original.search) created.search = original.search;
  return created.toString();
}

async function uploadTus(
  fetchFn: typeof fetch,
  policy: RetryPolicy,
  startUrl: string,
  blob: Blob,
  options: UploadVideoOptions,
): Promise<UploadResult> {
  const total = blob.size;
  const chunkSize = Math.max(1, options.chunkSize ?? DEFAULT_CHUNK_SIZE);
  let url = startUrl;
  const head = await tusHead(fetchFn, policy, url, options.signal);
  let offset: number;
  if ('completed' in head) {
    throw new FramedeskError({
      status: 409,
      code: 'upload_already_completed',
      detail: 'This upload session has already received its media.',
    });
  } else if ('missing' in head) {
    url = await tusCreate(fetchFn, policy, url, blob, options);
    offset = 0;
  } else {
    offset = head.offset;
  }
  options.onProgress?.({ bytesSent: offset, bytesTotal: total });
  let patches = 0; // PATCHes this call sent, whether or not their answer arrived
  let failures = 0;
  while (offset < total) {
    const end = Math.min(total, offset + chunkSize);
    let failure: FramedeskError | undefined;
    try {
      patches++;
      const response = await fetchFn(url, {
        method: 'PATCH',
        headers: {
          'Tus-Resumable': TUS_VERSION,
          'Upload-Offset': String(offset),
          'Content-Type': 'application/offset+octet-stream',
        },
        body: blob.slice(offset, end),
        signal: options.signal,
      });
      if (response.ok) {
        await response.body?.cancel();
        const next = Number(response.headers.get('upload-offset') ?? end);
        offset = Number.isSafeInteger(next) && next > offset ? next : end;
        failures = 0;
        options.onProgress?.({ bytesSent: offset, bytesTotal: total });
        continue;
      }
      failure = await errorFromResponse(response);
      if (failure.code === 'upload_already_completed' && patches > 1) break; // an earlier, broken PATCH did land
      // 409 (upload_offset_mismatch, or a plain tus server's 409): the offset moved under us;
      // 423: still locked by the broken request. HEAD tells where to go on.
      const recoverable =
        isRetryable(failure) ||
        failure.status >= 500 ||
        failure.status === 423 ||
        (failure.status === 409 && failure.code !== 'upload_already_completed');
      if (!recoverable) throw failure;
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (error === failure) throw error;
      failure = new FramedeskError({
        status: 0,
        code: 'network_error',
        detail: `The tus PATCH at offset ${offset} broke: ${String(error)}`,
        cause: error,
      });
    }
    failures++;
    if (failures >= policy.attempts) throw failure;
    await policy.sleep(failure.retryAfterMs ?? backoffMs(policy, failures), options.signal);
    // Resume from what the server actually kept, not from what we think we sent.
    const resumed = await tusHead(fetchFn, policy, url, options.signal);
    if ('completed' in resumed) break; // the broken PATCH's bytes did land
    if (!('offset' in resumed))
      throw new FramedeskError({
        status: 404,
        code: 'not_found',
        detail: 'The tus upload disappeared while resuming.',
      });
    offset = resumed.offset;
  }
  return { protocol: 'tus', bytesTotal: total, url };
}
