// The fleet's tus uploader: opens an upload session, sends the clip in slow PATCHes so faults
// land mid-request, and resumes from the offset HEAD reports on whichever instance answers.
import { createHash, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { FLEET_CHANNEL } from './fleet';
import {
  type Answer,
  describeAnswer,
  type LoadContext,
  NO_HEADERS,
  pause,
  retryable,
  send,
  untilAnswered,
} from './fleet-load';
import { sleep } from './harness';

/** Sends `body` in small pieces, slowly, so a fault lands mid-PATCH; resolves with the answer (0: cut) and its offset. */
function slowPatch(url: string, offset: number, body: Buffer): Promise<{ answer: Answer; offset: number }> {
  return new Promise((resolve) => {
    const req = httpRequest(url, {
      method: 'PATCH',
      headers: {
        'Tus-Resumable': '1.0.0',
        'Content-Type': 'application/offset+octet-stream',
        'Upload-Offset': String(offset),
        'Content-Length': String(body.length),
      },
      timeout: 15_000,
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      const done = () => {
        const headers = new Headers();
        for (const name of ['retry-after', 'x-request-id', 'upload-offset']) {
          const value = res.headers[name];
          if (typeof value === 'string') headers.set(name, value);
        }
        let parsed: Record<string, unknown> | null = null;
        try {
          parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        } catch {
          parsed = null;
        }
        resolve({
          answer: { status: res.statusCode ?? 0, headers, body: parsed },
          offset: Number(res.headers['upload-offset'] ?? -1),
        });
      };
      res.on('end', done);
      res.on('error', done);
    });
    req.on('error', () => resolve({ answer: { status: 0, headers: NO_HEADERS, body: null }, offset: -1 }));
    req.on('timeout', () => req.destroy());
    const piece = 2048;
    let at = 0;
    const write = () => {
      if (at >= body.length) return void req.end();
      req.write(body.subarray(at, (at += piece)), () => setTimeout(write, 50));
    };
    write();
  });
}

export interface Upload {
  readonly submissionId: string;
  readonly sha256: string;
  interruptions: number;
  done: boolean;
}

export async function tusUploader(ctx: LoadContext, clip: Buffer, uploads: Upload[]): Promise<void> {
  const { fleet, tally } = ctx;
  const sha256 = createHash('sha256').update(clip).digest('hex');
  while (Date.now() < ctx.stopAt) {
    const key = randomUUID();
    const created = await untilAnswered(tally, 'POST /v1/media-uploads', ctx.giveUpAt, () =>
      send(`${fleet.url}/v1/media-uploads`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${fleet.agentKey}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: JSON.stringify({
          agent_slug: 'cam',
          channel_slug: FLEET_CHANNEL,
          media_type: 'video',
          filename: 'clip.mp4',
          content_type: 'video/mp4',
          byte_size: clip.length,
        }),
      }),
    );
    if (created.status !== 201) {
      tally.unexpected.push(describeAnswer('upload session', created));
      continue;
    }
    const upload: Upload = {
      submissionId: String(created.body?.['submission_id']),
      sha256,
      interruptions: 0,
      done: false,
    };
    uploads.push(upload);
    ctx.acked.push({ id: upload.submissionId, kind: 'video', key });
    const url = String(created.body?.['upload_url']);
    while (!upload.done && Date.now() < ctx.giveUpAt) {
      // A HEAD has no body: a 409 (the session takes no more bytes) is not retried but checked;
      // a 423 (another request, or one cut by a kill, still holds the upload) is retried.
      const head = await untilAnswered(
        tally,
        'HEAD upload',
        ctx.giveUpAt,
        () => send(url, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } }),
        (a) => a.status !== 409 && retryable(a),
      );
      const offset = Number(head.headers.get('upload-offset') ?? NaN);
      // 409 to a HEAD: the session no longer takes bytes. After a cut PATCH that is the upload
      // having completed; the submission says so.
      if (head.status === 409 && (await submissionMoved(ctx, upload.submissionId))) {
        upload.done = true;
        break;
      }
      if (head.status !== 200 || !Number.isFinite(offset)) {
        tally.unexpected.push(describeAnswer(`HEAD upload of ${upload.submissionId}`, head));
        break;
      }
      if (offset === clip.length) {
        upload.done = true;
        break;
      }
      const patched = await slowPatch(url, offset, clip.subarray(offset));
      tally.record('PATCH upload', patched.answer);
      if (patched.answer.status === 204 && patched.offset === clip.length) upload.done = true;
      else if (retryable(patched.answer) || patched.answer.status === 409) {
        upload.interruptions++;
        tally.retries++;
        await sleep(pause(patched.answer));
      } else {
        tally.unexpected.push(describeAnswer(`PATCH upload of ${upload.submissionId}`, patched.answer));
        break;
      }
    }
  }
}

/** Whether the video submission has left `waiting_for_upload` (its media was taken in). */
async function submissionMoved(ctx: LoadContext, id: string): Promise<boolean> {
  const a = await untilAnswered(ctx.tally, 'GET /v1/frame-submissions/:id', ctx.giveUpAt, () =>
    send(`${ctx.fleet.url}/v1/frame-submissions/${id}`, { headers: { authorization: `Bearer ${ctx.fleet.agentKey}` } }),
  );
  return a.status === 200 && a.body?.['status'] !== 'waiting_for_upload';
}
