import { createHash } from 'node:crypto';
import {
  type FramedeskClient,
  isFramedeskError,
  type MediaUpload,
  type Status,
  type Submission,
} from '@framedesk/client';
import type { RejectReason, ReviewMoment, ReviewRegion } from '@framedesk/contracts';
import { frameDateOf, isFrameDate } from '@framedesk/domain';
import type { SampleFrame } from './render';

/** Decides frames waiting for review, as a reviewer would (the review service, or the review API). */
export interface SampleReviewer {
  promote(id: string): Promise<void>;
  reject(
    id: string,
    reason: RejectReason,
    note: string,
    regions: readonly ReviewRegion[],
    /** A video's time-coded items; none for an image. */
    moments?: readonly ReviewMoment[],
  ): Promise<void>;
}

export interface SeedSamplesOptions {
  /** The agent API, with the key of `agent`, who is allowed on every sample's channel. */
  readonly client: FramedeskClient;
  readonly agent: string;
  readonly frames: readonly SampleFrame[];
  /**
   * The day the samples are dated back from (YYYYMMDD). A resumed run must pass the same day, so
   * that it sends the very requests the interrupted one did (their Idempotency-Keys replay them).
   */
  readonly today: string;
  readonly reviewer: SampleReviewer;
  /** How long to wait for one frame to be processed before going on without it (default 2 minutes). */
  readonly settleTimeoutMs?: number;
}

export interface SeedResult {
  /** Each sample's submission id, by sample name. */
  readonly ids: ReadonlyMap<string, string>;
  /** Samples this run created (0 when an earlier run had sent them all). */
  readonly sent: number;
  /** How many samples are in each status now. */
  readonly statuses: Readonly<Partial<Record<Status, number>>>;
  /** Samples that could not be sent, and why (a run later sends them). */
  readonly unsent: readonly { readonly name: string; readonly reason: string }[];
}

/** The key itself is refused: no sample can be sent, so the run stops. */
const isFatal = (error: unknown) =>
  !isFramedeskError(error) || error.code === 'unauthenticated' || error.code === 'forbidden';

const SETTLED: readonly Status[] = ['needs_review', 'promoted', 'rejected', 'failed'];

/**
 * A sample's Idempotency-Key: a UUID made from its name (SHA-256, version 8), so every run sends
 * a sample under the same key and the API replays what an interrupted run already created.
 */
export function sampleIdempotencyKey(name: string): string {
  const hex = createHash('sha256').update(`framedesk-sample\0${name}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** `today` minus `days`, YYYYMMDD. */
export function daysBefore(today: string, days: number): string {
  if (!isFrameDate(today)) throw new Error(`${today} is not a YYYYMMDD date`);
  const [y, m, d] = [Number(today.slice(0, 4)), Number(today.slice(4, 6)), Number(today.slice(6, 8))];
  return frameDateOf(new Date(Date.UTC(y, m - 1, d - days)));
}

/** The agent's samples already in the service, by `external_ref` (an earlier, interrupted run's). */
async function sentBefore(client: FramedeskClient): Promise<Map<string, Submission>> {
  const found = new Map<string, Submission>();
  for await (const submission of client.listSubmissions({ limit: 100 }))
    if (submission.external_ref?.startsWith('sample:')) found.set(submission.external_ref, submission);
  return found;
}

/** Sends a video's bytes unless the session already has them. */
async function finishUpload(client: FramedeskClient, upload: MediaUpload, frame: SampleFrame): Promise<void> {
  if ((await client.getUpload(upload.id)).status !== 'waiting_for_upload') return;
  await client.uploadVideo(upload, frame.bytes, { filename: frame.filename, contentType: frame.contentType });
}

/** Creates one sample through the agent API; returns its submission id. */
async function submit(options: SeedSamplesOptions, frame: SampleFrame, revisionOf?: string): Promise<string> {
  const { client, agent, today } = options;
  const call = { idempotencyKey: sampleIdempotencyKey(frame.name) };
  const described = {
    title: frame.title,
    caption: frame.caption,
    external_ref: frame.externalRef,
    ...(frame.clickZones.length > 0 ? { click_zones: [...frame.clickZones] } : {}),
  };
  const date = daysBefore(today, frame.daysAgo);
  if (frame.mediaType === 'image') {
    const revision = revisionOf ? { revision_of: revisionOf } : {};
    const metadata = { agent_slug: agent, channel_slug: frame.channel, date, ...revision, ...described };
    return (await client.submitFrame({ metadata, image: frame.bytes, filename: frame.filename }, call)).id;
  }
  const upload = await client.createVideoUpload(
    {
      agent_slug: agent,
      channel_slug: frame.channel,
      media_type: 'video',
      filename: frame.filename,
      content_type: frame.contentType,
      byte_size: frame.bytes.length,
      date,
      metadata: described,
    },
    call,
  );
  await finishUpload(client, upload, frame);
  return upload.submission_id;
}

/** Waits until the frame is processed; one that takes too long is left as it is. */
async function settle(client: FramedeskClient, id: string, timeoutMs: number): Promise<void> {
  try {
    await client.waitForStatus(id, SETTLED, { timeoutMs });
  } catch (error) {
    if (!isFramedeskError(error) || error.code !== 'timeout') throw error;
  }
}

/**
 * Sends the samples through the agent API as `agent`, waits until they are processed, and has
 * `reviewer` decide those meant to be promoted or rejected. Re-sends go after the frames they
 * repeat are processed, so their fingerprints find them. Safe to run again after an interruption:
 * samples already there are recognised by `external_ref`, and each create has its own
 * Idempotency-Key, so nothing is sent twice and nothing is decided twice. A sample that cannot be
 * sent (no answer, a video upload that fails) is listed in `unsent` and the others go on; a refused
 * key stops the run.
 */
export async function seedSamples(options: SeedSamplesOptions): Promise<SeedResult> {
  const { client, frames, reviewer } = options;
  const timeoutMs = options.settleTimeoutMs ?? 120_000;
  const before = await sentBefore(client);
  const ids = new Map<string, string>();
  const unsent: { name: string; reason: string }[] = [];
  let sent = 0;
  const send = async (frame: SampleFrame) => {
    try {
      const found = before.get(frame.externalRef);
      if (found?.status === 'waiting_for_upload' && found.media_upload_id)
        await finishUpload(client, await client.getUpload(found.media_upload_id), frame);
      const revisionOf = frame.revisionOf ? ids.get(frame.revisionOf) : undefined;
      if (frame.revisionOf && !revisionOf) throw new Error(`${frame.revisionOf} was not sent`);
      ids.set(frame.name, found?.id ?? (await submit(options, frame, revisionOf)));
      if (!found) sent++;
    } catch (error) {
      if (isFatal(error)) throw error;
      unsent.push({ name: frame.name, reason: (error as Error).message });
    }
  };
  const wait = async (frame: SampleFrame) => {
    const id = ids.get(frame.name);
    if (id) await settle(client, id, timeoutMs);
  };
  const firsts = frames.filter((f) => !f.resendOf && !f.revisionOf);
  for (const frame of firsts) await send(frame);
  for (const frame of firsts) await wait(frame);
  for (const frame of frames.filter((f) => f.resendOf)) {
    await send(frame);
    await wait(frame);
  }
  for (const frame of frames) {
    const id = ids.get(frame.name);
    // The channel's policy decides its own samples: one it left waiting stays waiting.
    if (!id || frame.byPolicy || (frame.outcome !== 'promoted' && frame.outcome !== 'rejected')) continue;
    if ((await client.getSubmission(id)).status !== 'needs_review') continue;
    if (frame.outcome === 'promoted') await reviewer.promote(id);
    else {
      const { reason = 'Other', note = 'Sample frame.', regions = [], moments = [] } = frame.rejection ?? {};
      await reviewer.reject(id, reason, note, regions, moments);
    }
  }
  // Revisions last: `revision_of` must name a frame already decided.
  for (const frame of frames.filter((f) => f.revisionOf)) {
    await send(frame);
    await wait(frame);
  }
  const statuses: Partial<Record<Status, number>> = {};
  for (const id of ids.values()) {
    const { status } = await client.getSubmission(id);
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
  return { ids, sent, statuses, unsent };
}
