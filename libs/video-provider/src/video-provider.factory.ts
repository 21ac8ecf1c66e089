import type { ProjectConfig, Settings } from '@framedesk/config';
import {
  CLOUDFLARE_MAX_EXPIRY_SECONDS,
  CLOUDFLARE_MIN_EXPIRY_SECONDS,
  createCloudflareVideoProvider,
} from './cloudflare.provider';
import { createLocalVideoProvider } from './local.provider';
import type { VideoProvider } from './video-provider';

type ProviderSettings = Pick<
  Settings,
  | 'VIDEO_PROVIDER'
  | 'CLOUDFLARE_API_BASE'
  | 'CLOUDFLARE_ACCOUNT_ID'
  | 'CLOUDFLARE_API_TOKEN'
  | 'CLOUDFLARE_WEBHOOK_SECRET'
  | 'CLOUDFLARE_WEBHOOK_MAX_AGE_SECONDS'
>;

/** A configuration the chosen driver cannot honour; processes refuse to start with it. */
export class VideoProviderConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VideoProviderConfigError';
  }
}

/** The driver VIDEO_PROVIDER names, after checking the project configuration fits its bounds. */
export function createVideoProvider(
  settings: ProviderSettings,
  config: Pick<ProjectConfig, 'api' | 'delivery'>,
  options: { fetch?: typeof fetch; now?: () => Date } = {},
): VideoProvider {
  if (settings.VIDEO_PROVIDER === 'local') return createLocalVideoProvider({ baseUrl: config.api.base_url });
  const expires = config.delivery.vendor_stream_upload_expires_seconds;
  if (expires < CLOUDFLARE_MIN_EXPIRY_SECONDS || expires > CLOUDFLARE_MAX_EXPIRY_SECONDS) {
    throw new VideoProviderConfigError(
      `delivery.vendor_stream_upload_expires_seconds is ${expires}, but VIDEO_PROVIDER=cloudflare needs ` +
        `${CLOUDFLARE_MIN_EXPIRY_SECONDS}–${CLOUDFLARE_MAX_EXPIRY_SECONDS} (Cloudflare Stream's upload expiry bounds)`,
    );
  }
  if (!settings.CLOUDFLARE_ACCOUNT_ID || !settings.CLOUDFLARE_API_TOKEN) {
    throw new VideoProviderConfigError(
      'VIDEO_PROVIDER=cloudflare needs CLOUDFLARE_ACCOUNT_ID and CLOUDFLARE_API_TOKEN',
    );
  }
  return createCloudflareVideoProvider({
    apiBase: settings.CLOUDFLARE_API_BASE,
    accountId: settings.CLOUDFLARE_ACCOUNT_ID,
    apiToken: settings.CLOUDFLARE_API_TOKEN,
    webhookMaxAgeSeconds: settings.CLOUDFLARE_WEBHOOK_MAX_AGE_SECONDS,
    ...(settings.CLOUDFLARE_WEBHOOK_SECRET ? { webhookSecret: settings.CLOUDFLARE_WEBHOOK_SECRET } : {}),
    ...options,
  });
}
