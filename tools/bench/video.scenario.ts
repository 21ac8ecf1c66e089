// The local video driver's CPU per second of video (issue 45): ffprobe and the poster (what every
// local video always cost), then the measurement (blackdetect, freezedetect, silencedetect) and the
// sprite with its WebVTT track, both ways: in two ffmpeg runs each decoding the file (before, and
// still the fallback) and in the single pass the worker now runs (measureAndSprite), each timed on
// its own over a generated clip, interleaved in every repetition. In-process: the ffmpeg children's
// CPU is read from /proc/self/stat (cutime, cstime: children waited for).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractPoster, makeSprite, measureAndSprite, measureVideo, posterTime, probeVideo } from '@framedesk/media';
import { type ScenarioResult, row } from './report';

const SCENARIO = 'Video processing (local)';
const TICKS_PER_SECOND = 100;

export interface VideoBenchOptions {
  readonly reps: number;
  /** Length of the generated clip. */
  readonly seconds: number;
}

/** CPU (user + system) of this process's finished children so far, in ms. */
async function childrenCpuMs(): Promise<number> {
  const stat = await readFile('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND) * 1000;
}

async function childCpu(work: () => Promise<unknown>): Promise<number> {
  const before = await childrenCpuMs();
  await work();
  return (await childrenCpuMs()) - before;
}

/** A 640×360, 25 fps H.264 clip of the moving test pattern with a tone (AAC), as a render might be. */
function makeClip(dir: string, seconds: number): string {
  const path = join(dir, 'clip.mp4');
  execFileSync('ffmpeg', [
    ...['-y', '-loglevel', 'error'],
    ...['-f', 'lavfi', '-i', `testsrc2=size=640x360:rate=25:duration=${seconds}`],
    ...['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=44100:duration=${seconds}`],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', path],
  ]);
  return path;
}

export async function videoScenario(options: VideoBenchOptions): Promise<ScenarioResult> {
  const dir = mkdtempSync(join(tmpdir(), 'fd-bench-video-'));
  try {
    const clip = makeClip(dir, options.seconds);
    const probe = await probeVideo(clip);
    const perSecond = (ms: number) => ms / probe.durationSeconds;
    const base: number[] = [];
    const measured: number[] = [];
    const sprite: number[] = [];
    const pass: number[] = [];
    const spriteBytes: number[] = [];
    for (let rep = 0; rep < options.reps; rep++) {
      base.push(
        perSecond(
          await childCpu(async () => {
            const p = await probeVideo(clip);
            await extractPoster(clip, { atSeconds: posterTime(p.durationSeconds) });
          }),
        ),
      );
      measured.push(perSecond(await childCpu(() => measureVideo(clip, probe))));
      sprite.push(perSecond(await childCpu(() => makeSprite(clip, probe))));
      pass.push(
        perSecond(
          await childCpu(async () => {
            const made = await measureAndSprite(clip, probe);
            if (!made.measurement.ok || !made.sprite.ok) throw new Error('the single pass failed on the bench clip');
            spriteBytes.push(made.sprite.value.webp.length);
          }),
        ),
      );
    }
    const twoRuns = measured.map((m, i) => m + sprite[i]!);
    return {
      name: SCENARIO,
      rows: [
        row(SCENARIO, 'ffprobe + poster (no measurement, no sprite), CPU per s of video', 'ms', base),
        row(SCENARIO, 'before: measurement alone (its own decode), CPU per s of video', 'ms', measured),
        row(SCENARIO, 'before: sprite + WebVTT alone (its own decode), CPU per s of video', 'ms', sprite),
        row(SCENARIO, 'before: measurement + sprite, two runs, CPU per s of video', 'ms', twoRuns),
        row(SCENARIO, 'after: measurement + sprite, one pass, CPU per s of video', 'ms', pass),
        row(
          SCENARIO,
          'before: all of it, CPU per s of video',
          'ms',
          base.map((b, i) => b + twoRuns[i]!),
        ),
        row(
          SCENARIO,
          'after: all of it, CPU per s of video',
          'ms',
          base.map((b, i) => b + pass[i]!),
        ),
        row(
          SCENARIO,
          'sprite size',
          'kB',
          spriteBytes.map((b) => b / 1024),
        ),
      ],
      details: { base, measured, sprite, twoRuns, pass, spriteBytes, durationSeconds: probe.durationSeconds },
      notes: [
        `A ${options.seconds} s 640×360 25 fps H.264 + AAC clip (testsrc2 and a tone); ffmpeg's CPU, user + system.`,
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
