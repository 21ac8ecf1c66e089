import { crc32 } from 'node:zlib';
import type { ClickZone } from '@framedesk/contracts';
import {
  encodeClip,
  seededRandom,
  svgToPicture,
  svgToPng,
  VideoToolUnavailableError,
  videoToolVersion,
} from '@framedesk/media';
import { type SampleOutcome, type SampleSpec, SAMPLE_SPECS } from './sample-set';

/** A sample ready to send: its bytes, its metadata, and where it should end. */
export interface SampleFrame {
  readonly name: string;
  readonly channel: string;
  readonly mediaType: 'image' | 'video';
  readonly filename: string;
  readonly contentType: 'image/png' | 'video/mp4';
  readonly bytes: Buffer;
  readonly title: string;
  readonly caption: string;
  readonly clickZones: readonly ClickZone[];
  /** `sample:<name>`: how the agent (and a resumed run) recognises it. */
  readonly externalRef: string;
  readonly daysAgo: number;
  readonly outcome: SampleOutcome;
  readonly rejection?: SampleSpec['rejection'];
  /** The sample this one is a near-duplicate of (sent again), if any. */
  readonly resendOf?: string;
  readonly byPolicy?: true;
  /** The sample this one is a revision of (`metadata.revision_of`), if any. */
  readonly revisionOf?: string;
}

export interface RenderOptions {
  /** Varies the scenes' details; the default gives the set the docs' screenshots show. */
  readonly seed?: number;
  /** Make the video sample with this ffmpeg (default `ffmpeg`); false leaves it out. */
  readonly video?: { readonly ffmpegPath?: string } | false;
  /** Only these specs (default: the whole set). */
  readonly specs?: readonly SampleSpec[];
}

export interface RenderedSamples {
  readonly frames: readonly SampleFrame[];
  /** What was left out and why, one line each (e.g. the video without ffmpeg). */
  readonly notes: readonly string[];
}

/** FNV-1a: a sample's own random sequence, independent of its place in the set. */
function nameSeed(name: string, seed: number): number {
  let hash = 0x811c9dc5 ^ seed;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const frame = Buffer.alloc(8 + data.length + 4);
  frame.writeUInt32BE(data.length, 0);
  body.copy(frame, 4);
  frame.writeUInt32BE(crc32(body), 8 + data.length);
  return frame;
}

/** PNG signature and a valid header, then image data that is not a zlib stream: nothing decodes. */
function truncatedPng(width: number, height: number, r: () => number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const data = Buffer.from(Array.from({ length: 2048 }, () => Math.floor(r() * 256)));
  data[0] = 0xff; // never a valid zlib header
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', data),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

async function clip(spec: SampleSpec & { picture: { kind: 'clip' } }, seed: number, ffmpegPath?: string) {
  const fps = 10;
  const count = spec.picture.seconds * fps;
  await videoToolVersion('ffmpeg', ffmpegPath); // no frames drawn for nothing when it is missing
  const frames = [];
  // The same random sequence for every frame: only `progress` moves.
  for (let i = 0; i < count; i++)
    frames.push(await svgToPicture(spec.picture.draw(seededRandom(nameSeed(spec.name, seed)), i / (count - 1))));
  return encodeClip(frames, { fps, ...(ffmpegPath ? { ffmpegPath } : {}) });
}

/**
 * Draws the sample set: the same options give the same bytes (scenes from a seeded random
 * sequence, rasterised by libs/media). Without ffmpeg the video is left out with a note.
 */
export async function renderSamples(options: RenderOptions = {}): Promise<RenderedSamples> {
  const seed = options.seed ?? 1;
  const specs = options.specs ?? SAMPLE_SPECS;
  const byName = new Map(specs.map((s) => [s.name, s]));
  const frames: SampleFrame[] = [];
  const notes: string[] = [];
  for (const spec of specs) {
    const r = seededRandom(nameSeed(spec.name, seed));
    const picture = spec.picture;
    let bytes: Buffer;
    let resendOf: string | undefined;
    switch (picture.kind) {
      case 'scene':
        bytes = await svgToPng(picture.draw(r));
        break;
      case 'resend': {
        const original = byName.get(picture.of);
        if (original?.picture.kind !== 'scene') throw new Error(`${spec.name} re-sends ${picture.of}, not a scene`);
        bytes = await svgToPng(original.picture.draw(seededRandom(nameSeed(original.name, seed))), picture.edit);
        resendOf = original.name;
        break;
      }
      case 'truncated':
        bytes = truncatedPng(picture.width, picture.height, r);
        break;
      case 'clip': {
        if (options.video === false) continue;
        const ffmpegPath = options.video?.ffmpegPath;
        try {
          bytes = await clip({ ...spec, picture }, seed, ffmpegPath);
        } catch (error) {
          if (!(error instanceof VideoToolUnavailableError)) throw error;
          notes.push(`no video sample: ${error.message}`);
          continue;
        }
        break;
      }
    }
    const video = picture.kind === 'clip';
    frames.push({
      name: spec.name,
      channel: spec.channel,
      mediaType: video ? 'video' : 'image',
      filename: `${spec.name}.${video ? 'mp4' : 'png'}`,
      contentType: video ? 'video/mp4' : 'image/png',
      bytes,
      title: spec.title,
      caption: spec.caption,
      clickZones: spec.clickZones ?? [],
      externalRef: `sample:${spec.name}`,
      daysAgo: spec.daysAgo,
      outcome: spec.outcome,
      ...(spec.rejection ? { rejection: spec.rejection } : {}),
      ...(resendOf ? { resendOf } : {}),
      ...(spec.byPolicy ? { byPolicy: spec.byPolicy } : {}),
      ...(spec.revisionOf ? { revisionOf: spec.revisionOf } : {}),
    });
  }
  return { frames, notes };
}
