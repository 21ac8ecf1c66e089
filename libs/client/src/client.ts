import { FramedeskError } from './errors';
import { type RetryOptions, retryPolicy, withRetries } from './retry';
import {
  FINAL_STATUSES,
  type FrameMetadata,
  type MediaUpload,
  type MediaUploadRequest,
  type Status,
  type Submission,
  type SubmissionFilters,
  type SubmissionPage,
} from './types';
import { toBlob, uploadMedia, type UploadResult, type UploadTarget, type UploadVideoOptions } from './upload';

export interface ClientOptions {
  /** Where the API runs, e.g. `http://127.0.0.1:3000` (with or without a trailing `/v1`). */
  readonly baseUrl: string;
  /** An agent API key, `fd_live_…`. */
  readonly apiKey: string;
  /** Defaults to the global `fetch`. */
  readonly fetch?: typeof fetch;
  readonly retry?: RetryOptions;
}

export interface CallOptions {
  /** Your own key, e.g. to retry a call across a process restart; by default one UUID per call. */
  readonly idempotencyKey?: string;
  readonly signal?: AbortSignal;
}

export interface SubmitFrameInput {
  readonly metadata: FrameMetadata;
  /** PNG bytes. */
  readonly image: Blob | Uint8Array;
  readonly filename?: string;
}

export interface WaitOptions {
  /** Give up after this long (default 5 minutes) with a `timeout` error. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** First polling interval (default 500 ms); grows ×1.5 to `maxIntervalMs` (default 5 s). */
  readonly intervalMs?: number;
  readonly maxIntervalMs?: number;
}

export interface FramedeskClient {
  submitFrame(input: SubmitFrameInput, options?: CallOptions): Promise<Submission>;
  createVideoUpload(request: MediaUploadRequest, options?: CallOptions): Promise<MediaUpload>;
  uploadVideo(upload: UploadTarget, data: Blob | Uint8Array, options?: UploadVideoOptions): Promise<UploadResult>;
  getSubmission(id: string, options?: Pick<CallOptions, 'signal'>): Promise<Submission>;
  getUpload(id: string, options?: Pick<CallOptions, 'signal'>): Promise<MediaUpload>;
  /** One page; `cursor` from the previous page's `next_cursor`. */
  listSubmissionsPage(
    filters?: SubmissionFilters & { readonly cursor?: string },
    options?: Pick<CallOptions, 'signal'>,
  ): Promise<SubmissionPage>;
  /** Every matching submission, newest first, fetching pages as the loop asks for them. */
  listSubmissions(
    filters?: SubmissionFilters,
    options?: Pick<CallOptions, 'signal'>,
  ): AsyncIterableIterator<Submission>;
  /**
   * Polls a submission (`sub_…`) or upload (`upl_…`) until its status is one of `statuses`.
   * Rejects with `unexpected_status` when it reaches a final status not in the list.
   */
  waitForStatus<T extends Submission | MediaUpload = Submission>(
    id: string,
    statuses: readonly Status[],
    options?: WaitOptions,
  ): Promise<T>;
}

export function createClient(options: ClientOptions): FramedeskClient {
  const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
  const policy = retryPolicy(options.retry);
  const root = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  const auth = { Authorization: `Bearer ${options.apiKey}`, Accept: 'application/json' };

  const url = (path: string, query?: Record<string, string | number | undefined>) => {
    const u = new URL(`${root}${path}`);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') u.searchParams.set(k, String(v));
    return u.toString();
  };

  async function json<T>(response: Response): Promise<T> {
    try {
      return (await response.json()) as T;
    } catch (cause) {
      throw new FramedeskError({
        status: response.status,
        code: 'invalid_response',
        detail: 'The answer is not JSON.',
        cause,
      });
    }
  }

  /** One logical create: one Idempotency-Key, reused by every retry of this call. */
  async function create<T>(
    path: string,
    body: () => NonNullable<RequestInit['body']>,
    headers: Record<string, string>,
    call: CallOptions = {},
  ): Promise<T> {
    const key = call.idempotencyKey ?? crypto.randomUUID();
    const response = await withRetries(
      () =>
        fetchFn(url(path), {
          method: 'POST',
          headers: { ...auth, ...headers, 'Idempotency-Key': key },
          body: body(),
          signal: call.signal,
        }),
      policy,
      call.signal,
    );
    return json<T>(response);
  }

  async function get<T>(
    path: string,
    query?: Record<string, string | number | undefined>,
    signal?: AbortSignal,
  ): Promise<T> {
    const response = await withRetries(() => fetchFn(url(path, query), { headers: auth, signal }), policy, signal);
    return json<T>(response);
  }

  const client: FramedeskClient = {
    submitFrame(input, call) {
      const metadata = JSON.stringify(input.metadata);
      const image = toBlob(input.image, 'image/png');
      return create<Submission>(
        '/v1/frame-submissions',
        () => {
          const form = new FormData();
          form.append('metadata', new Blob([metadata], { type: 'application/json' }), 'metadata.json');
          form.append(
            'image',
            image.type === 'image/png' ? image : image.slice(0, image.size, 'image/png'),
            input.filename ?? 'frame.png',
          );
          return form;
        },
        {},
        call,
      );
    },

    createVideoUpload(request, call) {
      const body = JSON.stringify(request);
      return create<MediaUpload>('/v1/media-uploads', () => body, { 'Content-Type': 'application/json' }, call);
    },

    uploadVideo(upload, data, uploadOptions) {
      return uploadMedia(fetchFn, policy, upload, data, uploadOptions);
    },

    getSubmission(id, call) {
      return get<Submission>(`/v1/frame-submissions/${encodeURIComponent(id)}`, undefined, call?.signal);
    },

    getUpload(id, call) {
      return get<MediaUpload>(`/v1/media-uploads/${encodeURIComponent(id)}`, undefined, call?.signal);
    },

    async listSubmissionsPage(filters = {}, call) {
      const page = await get<Record<string, unknown>>('/v1/frame-submissions', { ...filters }, call?.signal);
      const data = page['data'] ?? page['items'];
      if (!Array.isArray(data))
        throw new FramedeskError({
          status: 200,
          code: 'invalid_response',
          detail: 'The list answer has no data array.',
        });
      const next = page['next_cursor'];
      return { data: data as Submission[], next_cursor: typeof next === 'string' && next !== '' ? next : null };
    },

    async *listSubmissions(filters = {}, call) {
      let cursor: string | undefined;
      do {
        const page = await client.listSubmissionsPage({ ...filters, cursor }, call);
        yield* page.data;
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
    },

    async waitForStatus<T extends Submission | MediaUpload = Submission>(
      id: string,
      statuses: readonly Status[],
      wait: WaitOptions = {},
    ): Promise<T> {
      const deadline = Date.now() + (wait.timeoutMs ?? 300_000);
      let interval = wait.intervalMs ?? 500;
      const read = () =>
        (id.startsWith('upl_') ? client.getUpload(id, wait) : client.getSubmission(id, wait)) as Promise<T>;
      for (;;) {
        const resource = await read();
        if (statuses.includes(resource.status)) return resource;
        if (FINAL_STATUSES.includes(resource.status)) {
          throw new FramedeskError({
            status: 0,
            code: 'unexpected_status',
            detail: `${id} ended ${resource.status}, not ${statuses.join(' or ')}.`,
            body: resource,
          });
        }
        const left = deadline - Date.now();
        if (left <= 0) {
          throw new FramedeskError({
            status: 0,
            code: 'timeout',
            detail: `${id} is still ${resource.status} after waiting for ${statuses.join(' or ')}.`,
            body: resource,
          });
        }
        await policy.sleep(Math.min(interval, left), wait.signal);
        interval = Math.min(wait.maxIntervalMs ?? 5_000, Math.round(interval * 1.5));
      }
    },
  };
  return client;
}
