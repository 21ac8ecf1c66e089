import { readStartupConfiguration } from '@framedesk/config';
import { createStorage } from '@framedesk/storage';
import { createVideoProvider } from '@framedesk/video-provider';

/** What the media commands work on: the settings, the project configuration, storage, the video provider. */
export function mediaContext(env: NodeJS.ProcessEnv) {
  const { settings, config } = readStartupConfiguration(env);
  return {
    settings,
    config,
    storage: createStorage(settings),
    provider: createVideoProvider(settings, config),
    bucket: config.storage.vendor_originals_bucket,
  };
}
