/**
 * The `vendor_stream` provider (DESIGN.md §5): one interface, two drivers chosen by
 * VIDEO_PROVIDER — `local` (the API itself receives the upload) and `cloudflare` (Stream).
 */
export type UploadProtocol = 'basic' | 'tus';

export interface CreateUploadInput {
  readonly uploadId: string;
  readonly submissionId: string;
  readonly byteSize: number;
  readonly contentType: string;
  readonly filename: string;
  readonly expiresAt: Date;
  readonly maxDurationSeconds?: number;
  readonly protocol: UploadProtocol;
}

export interface UploadSession {
  /** Where the agent sends the media: `upload_url`. */
  readonly uploadUrl: string;
  /** The provider's id of the video (Cloudflare uid; the upload id for the local driver). */
  readonly providerRef: string;
  /** SHA-256 of the one-time token carried in a local upload URL. */
  readonly tokenHash?: string;
}

/** A provider's view of a video, mapped onto our statuses (REFERENCE.md). */
export type ProviderVideoState =
  | { readonly state: 'waiting_for_upload' }
  | { readonly state: 'media_processing' }
  | {
      readonly state: 'ready';
      readonly durationSeconds?: number;
      readonly width?: number;
      readonly height?: number;
      readonly byteSize?: number;
      readonly thumbnailUrl?: string;
      readonly playbackUrl?: string;
    }
  | { readonly state: 'failed'; readonly failureCode: string; readonly failureMessage: string };

/** A verified provider notification: which video, and its state. */
export interface ProviderNotification {
  readonly providerRef: string;
  readonly video: ProviderVideoState;
}

export interface VideoProvider {
  readonly name: 'local' | 'cloudflare';
  createUpload(input: CreateUploadInput): Promise<UploadSession>;
  getVideo(providerRef: string): Promise<ProviderVideoState>;
  deleteVideo(providerRef: string): Promise<void>;
  /**
   * Verifies a webhook against the raw body and headers, then parses it. Throws
   * InvalidNotificationError when the signature is missing, wrong or stale.
   */
  parseNotification(
    rawBody: Buffer,
    headers: Readonly<Record<string, string | string[] | undefined>>,
  ): ProviderNotification;
}

/** A notification that cannot be trusted: answered 401, and nothing changes. */
export class InvalidNotificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidNotificationError';
  }
}

/** The provider answered with an error or not at all: transient, retried. */
export class VideoProviderError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'VideoProviderError';
  }
}
