// @framedesk/client: the agent API from any JavaScript runtime (browser or Node ≥ 20).
// Only fetch, FormData, Blob and crypto.randomUUID: nothing here may import a Node module.
export * from './client';
export * from './errors';
export * from './types';
export {
  DEFAULT_CHUNK_SIZE,
  TUS_VERSION,
  type UploadProgress,
  type UploadResult,
  type UploadTarget,
  type UploadVideoOptions,
} from './upload';
export { type RetryOptions } from './retry';
