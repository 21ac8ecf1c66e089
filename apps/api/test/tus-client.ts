// The tus requests the upload specs send, as a tus client would.
import { expect } from 'vitest';

export const TUS = { 'Tus-Resumable': '1.0.0' };

/** The JSON body of POST /v1/media-uploads: `agent`'s clip.mp4 of `byteSize` bytes for news. */
export const uploadRequest = (agent: string, byteSize: number) => ({
  agent_slug: agent,
  channel_slug: 'news',
  media_type: 'video',
  filename: 'clip.mp4',
  content_type: 'video/mp4',
  byte_size: byteSize,
});

export async function patch(url: string, offset: number, bytes: Buffer, extra: Record<string, string> = {}) {
  return fetch(url, {
    method: 'PATCH',
    headers: { ...TUS, 'Content-Type': 'application/offset+octet-stream', 'Upload-Offset': String(offset), ...extra },
    body: bytes,
  });
}

/** The offset a HEAD reports (which must answer 200). */
export async function headOffset(url: string): Promise<number> {
  const response = await fetch(url, { method: 'HEAD', headers: TUS });
  expect(response.status).toBe(200);
  return Number(response.headers.get('upload-offset'));
}
