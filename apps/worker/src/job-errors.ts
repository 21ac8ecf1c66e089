import { VideoToolUnavailableError } from '@framedesk/media';
import { databaseUnreachableReason } from '@framedesk/db';
import { errorChain, systemFaultReason } from '@framedesk/domain';
import { redisUnreachableReason, UnrecoverableError } from '@framedesk/queues';
import { storageUnavailableReason } from '@framedesk/storage';

/**
 * Who is at fault when a job throws:
 * - `media`: the media's own fault, already recorded on the submission (`failed` with a code);
 * - `server`: this server lacks something (a tool, storage, PostgreSQL, Redis, disk space): the
 *   job is retried with a capped back-off for as long as that lasts, the submission never fails;
 * - `unknown`: anything else. Nothing proves the media at fault, so a job that carries a
 *   submission treats it as a server fault (held with back-off, listed on the operations page
 *   with `reason`); the submission never ends `failed` for it. Other jobs are retried, then fail.
 */
export type JobErrorClass =
  | { readonly kind: 'media' }
  | { readonly kind: 'server'; readonly reason: string }
  | { readonly kind: 'unknown'; readonly reason: string };

/** Why this one error is this server's fault (a tool, PostgreSQL, Redis, storage, network or disk), or null. */
function serverReason(e: object): string | null {
  if (e instanceof VideoToolUnavailableError) return `${e.message}; install ffmpeg or set ${toolSetting(e.tool)}`;
  return (
    systemFaultReason(e) ?? databaseUnreachableReason(e) ?? redisUnreachableReason(e) ?? storageUnavailableReason(e)
  );
}

const toolSetting = (tool: 'ffprobe' | 'ffmpeg') => (tool === 'ffprobe' ? 'FFPROBE_PATH' : 'FFMPEG_PATH');

export function classifyJobError(error: unknown): JobErrorClass {
  if (error instanceof UnrecoverableError) return { kind: 'media' };
  for (const e of errorChain(error)) {
    const reason = serverReason(e);
    if (reason) return { kind: 'server', reason };
  }
  return { kind: 'unknown', reason: unclassifiedReason(error) };
}

/** What the operations page shows for an error nothing explains: its name and first line, short. */
function unclassifiedReason(error: unknown): string {
  const e = error instanceof Error ? error : new Error(String(error));
  const line = (e.message.split('\n')[0] ?? '').trim().slice(0, 160);
  return `unclassified error (${e.name}${line ? `: ${line}` : ''})`;
}

/** Back-off between tries of a job held up by a server fault: doubling from `baseMs`, never above `maxMs`. */
export function serverFaultDelayMs(tries: number, baseMs = 5_000, maxMs = 300_000): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(tries - 1, 30)));
}
