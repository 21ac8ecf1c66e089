import { createHash } from 'node:crypto';
import { randomToken } from '@framedesk/domain';
import {
  type CreateUploadInput,
  InvalidNotificationError,
  type UploadSession,
  type VideoProvider,
} from './video-provider';

/**
 * The embedded default: `upload_url` points at the API itself, carrying an unguessable
 * one-time token instead of the agent's API key. The API's upload routes receive the bytes.
 */
export function createLocalVideoProvider(options: { baseUrl: string }): VideoProvider {
  return {
    name: 'local',
    async createUpload(input: CreateUploadInput): Promise<UploadSession> {
      const token = randomToken(24);
      const path = input.protocol === 'tus' ? 'tus' : 'basic';
      const url = new URL(`/uploads/${path}/${input.uploadId}`, options.baseUrl);
      url.searchParams.set('token', token);
      return {
        uploadUrl: url.toString(),
        providerRef: input.uploadId,
        tokenHash: createHash('sha256').update(token).digest('hex'),
      };
    },
    async getVideo() {
      // The local driver learns of uploads from its own upload routes, not by polling.
      return { state: 'waiting_for_upload' };
    },
    async deleteVideo() {},
    parseNotification() {
      // Nobody outside may tell the local driver that a video changed.
      throw new InvalidNotificationError('the local video provider accepts no notifications');
    },
  };
}
