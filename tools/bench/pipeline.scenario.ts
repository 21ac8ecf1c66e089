import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings } from '@framedesk/config';
import { processCpuMs } from './cpu';
import {
  type BenchStack,
  exampleConfig,
  originalKeys,
  submissionId,
  submitFrame,
  transitionTimes,
  waitUntilSettled,
} from './framedesk';
import { keepAliveAgent } from './http-load';
import { noisyPng, uniquePngParts } from './images';
import { type BenchOptions } from './options';
import { profileWorker } from './profile';
import { type ScenarioResult, atLeast, atMost, row } from './report';
import { runScript } from './processes';
import { type S3PerUnit, s3PerUnit } from './s3-meter';
import { median, percentile, sleep } from './stats';

/** What the worker makes when it processes a frame: `public` waits for a promotion (issue 39). */
const PROCESSED_VARIANTS = exampleConfig.delivery.vendor_image_variants.filter((v) => v !== 'public');

interface LoopResult {
  readonly elapsedMs: number;
  readonly cpuMs: number;
  readonly perImageMs: number[];
}

/** The plain sharp loop over the same originals, in its own process like the worker. */
async function sharpLoop(
  s: BenchStack,
  ids: readonly string[],
  concurrency: number,
  tag: string,
  warmup = false,
): Promise<LoopResult> {
  const { bucket, keys } = await originalKeys(s.db, ids);
  if (keys.length !== ids.length) throw new Error(`found ${keys.length} originals for ${ids.length} submissions`);
  const job = join(tmpdir(), `framedesk-bench-loop-${randomUUID()}.json`);
  const env = s.stack.env;
  await writeFile(
    job,
    JSON.stringify({
      storageRoot: env['STORAGE_FS_ROOT'],
      // On S3 the loop reads and writes the same server as the worker.
      ...(s.s3
        ? {
            s3: {
              endpoint: env['S3_ENDPOINT'],
              region: env['S3_REGION'],
              accessKeyId: env['S3_ACCESS_KEY_ID'],
              secretAccessKey: env['S3_SECRET_ACCESS_KEY'],
              forcePathStyle: env['S3_FORCE_PATH_STYLE'] === 'true',
            },
          }
        : {}),
      bucket,
      keys,
      variants: PROCESSED_VARIANTS,
      concurrency,
      outputPrefix: `bench-loop/${tag}`,
      warmup,
    }),
  );
  try {
    return await runScript<LoopResult>('baselines/sharp-loop.ts', [job], 30 * 60_000);
  } finally {
    await rm(job, { force: true });
  }
}

export async function submitAll(
  s: BenchStack,
  images: readonly Buffer[],
  count: number,
  tag: string,
): Promise<string[]> {
  const agent = keepAliveAgent(32);
  const ids: string[] = [];
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const n = next++;
      const result = await submitFrame(s, uniquePngParts(images[n % images.length]!, `${tag}-${n}`), agent);
      const id = submissionId(result);
      if (!id) throw new Error(`submission refused: ${result.status} ${result.error ?? result.body.slice(0, 300)}`);
      ids.push(id);
    }
  };
  await Promise.all(Array.from({ length: 32 }, lane));
  agent.destroy();
  return ids;
}

/**
 * Throughput: a batch submitted with no worker running, then one worker at its default
 * concurrency drains it; timed from the first media_processing event to the last needs_review
 * event. Then the same originals through the plain loop. Latency: a steady trickle of
 * submissions, 202 → needs_review from the event rows, next to the plain one-image time.
 */
export async function pipelineScenario(s: BenchStack, options: BenchOptions['pipeline']): Promise<ScenarioResult> {
  const concurrency = loadSettings({}).WORKER_CONCURRENCY; // the default, as the worker starts here
  const images = Array.from({ length: 8 }, (_, i) => noisyPng(1280, 720, { seed: 100 + i, noiseBits: 1 }));
  const reps: {
    batch: {
      framedeskPerSecond: number;
      loopPerSecond: number;
      spanMs: number;
      loopMs: number;
      workerCpuMsPerImage: number;
      loopCpuMsPerImage: number;
      /** Median media_processing → needs_review per image (worker) and per-image time (loop). */
      jobSpanMs: number;
      loopImageMs: number;
      statuses: Record<string, number>;
      /** --storage=s3: what the API asked of S3 per accepted frame, the worker per image, the loop per image. */
      s3?: { api: S3PerUnit; worker: S3PerUnit; loop: S3PerUnit };
    };
    steady: { p50Ms: number; p99Ms: number; singleMs: number; count: number; statuses: Record<string, number> };
  }[] = [];
  for (let rep = 0; rep < options.reps; rep++) {
    const s3Start = await s.s3?.snapshot();
    const ids = await submitAll(s, images, options.batch, `p${rep}`);
    const s3Accepted = await s.s3?.snapshot();
    const worker = await s.stack.startWorker();
    const cpuBefore = await processCpuMs(worker.child.pid!);
    const s3WorkerStart = await s.s3?.snapshot();
    const statuses = await waitUntilSettled(s.db, ids, 30 * 60_000);
    const workerCpuMs = ((await processCpuMs(worker.child.pid!)) ?? Number.NaN) - (cpuBefore ?? Number.NaN);
    const s3Drained = await s.s3?.snapshot();
    const times = [...(await transitionTimes(s.db, ids)).values()];
    const start = Math.min(...times.map((t) => t.processing ?? Number.POSITIVE_INFINITY));
    const end = Math.max(...times.map((t) => t.review ?? Number.NEGATIVE_INFINITY));
    const done = times.filter((t) => t.review !== undefined).length;
    const loop = await sharpLoop(s, ids, concurrency, `r${rep}`);
    const s3LoopEnd = await s.s3?.snapshot();
    const s3 =
      s3Start && s3Accepted && s3WorkerStart && s3Drained && s3LoopEnd
        ? {
            api: s3PerUnit(s3Start, s3Accepted, ids.length),
            worker: s3PerUnit(s3WorkerStart, s3Drained, ids.length),
            loop: s3PerUnit(s3Drained, s3LoopEnd, ids.length),
          }
        : undefined;

    // Steady trickle with the worker already warm.
    const agent = keepAliveAgent(4);
    const accepted: { id: string; at: number }[] = [];
    const pending: Promise<void>[] = [];
    const count = Math.round((options.steadyDurationMs / 1000) * options.steadyPerSecond);
    for (let i = 0; i < count; i++) {
      pending.push(
        submitFrame(s, uniquePngParts(images[i % images.length]!, `s${rep}-${i}`), agent).then((r) => {
          const id = submissionId(r);
          if (id) accepted.push({ id, at: Date.now() });
        }),
      );
      await sleep(1000 / options.steadyPerSecond);
    }
    await Promise.all(pending);
    agent.destroy();
    const steadyIds = accepted.map((a) => a.id);
    const steadyStatuses = await waitUntilSettled(s.db, steadyIds, 10 * 60_000);
    const steadyTimes = await transitionTimes(s.db, steadyIds);
    const latencies = accepted.flatMap((a) => {
      const review = steadyTimes.get(a.id)?.review;
      return review === undefined ? [] : [review - a.at];
    });
    await worker.stop();
    const single = await sharpLoop(s, steadyIds.slice(0, options.singleSamples), 1, `single${rep}`, true);

    reps.push({
      batch: {
        framedeskPerSecond: (done / (end - start)) * 1000,
        loopPerSecond: (ids.length / loop.elapsedMs) * 1000,
        spanMs: end - start,
        loopMs: loop.elapsedMs,
        workerCpuMsPerImage: workerCpuMs / ids.length,
        jobSpanMs: median(
          times.flatMap((t) => (t.processing !== undefined && t.review !== undefined ? [t.review - t.processing] : [])),
        ),
        loopImageMs: median(loop.perImageMs),
        loopCpuMsPerImage: loop.cpuMs / ids.length,
        statuses,
        ...(s3 ? { s3 } : {}),
      },
      steady: {
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        singleMs: median(single.perImageMs),
        count: latencies.length,
        statuses: steadyStatuses,
      },
    });
  }
  const b = (pick: (r: (typeof reps)[number]) => number) => reps.map(pick);
  const throughputRatio = median(b((r) => r.batch.framedeskPerSecond / r.batch.loopPerSecond));
  let profile: string[] = [];
  if (options.profile && throughputRatio < 1) {
    // One more batch, drained by a worker under --cpu-prof (through tsx, as the API's profile).
    const count = Math.min(options.batch, 150);
    profile = await submitAll(s, images, count, 'prof')
      .then((ids) =>
        profileWorker(s.stack, async () => {
          await waitUntilSettled(s.db, ids, 30 * 60_000);
        }),
      )
      .then((lines) => [`${count} images, one worker at concurrency ${concurrency}`, ...lines])
      .catch((error: unknown) => [`profiling failed: ${String(error).slice(0, 300)}`]);
  }
  const failed = reps.filter(
    (r) =>
      (r.batch.statuses['needs_review'] ?? 0) !== options.batch ||
      (r.steady.statuses['needs_review'] ?? 0) !== r.steady.count,
  );
  return {
    name: 'Pipeline',
    rows: [
      row(
        'Pipeline',
        `Framedesk images/s, ${options.batch} at once, 1 worker × ${concurrency}`,
        '/s',
        b((r) => r.batch.framedeskPerSecond),
      ),
      row(
        'Pipeline',
        `plain sharp loop images/s, concurrency ${concurrency}`,
        '/s',
        b((r) => r.batch.loopPerSecond),
      ),
      row(
        'Pipeline',
        'Framedesk / plain loop',
        '×',
        b((r) => r.batch.framedeskPerSecond / r.batch.loopPerSecond),
        atLeast(1.0),
      ),
      row(
        'Pipeline',
        'worker process CPU per image',
        'ms',
        b((r) => r.batch.workerCpuMsPerImage),
      ),
      row(
        'Pipeline',
        'plain loop process CPU per image',
        'ms',
        b((r) => r.batch.loopCpuMsPerImage),
      ),
      // The throughput ratio if both were bound by their own CPU alone: steady on a shared machine.
      row(
        'Pipeline',
        'CPU-cost ratio loop / worker per image',
        '×',
        b((r) => r.batch.loopCpuMsPerImage / r.batch.workerCpuMsPerImage),
      ),
      row(
        'Pipeline',
        `202 → needs_review p50 at ${options.steadyPerSecond}/s`,
        'ms',
        b((r) => r.steady.p50Ms),
      ),
      row(
        'Pipeline',
        `202 → needs_review p99 at ${options.steadyPerSecond}/s`,
        'ms',
        b((r) => r.steady.p99Ms),
      ),
      row(
        'Pipeline',
        'plain single-image processing time',
        'ms',
        b((r) => r.steady.singleMs),
      ),
      row(
        'Pipeline',
        'p50 latency / (1.5 × single + 50 ms)',
        '×',
        b((r) => r.steady.p50Ms / (1.5 * r.steady.singleMs + 50)),
        atMost(1),
      ),
      ...s3Rows(reps.flatMap((r) => (r.batch.s3 ? [r.batch.s3] : []))),
    ],
    details: { concurrency, variants: PROCESSED_VARIANTS, storage: s.s3 ? 's3' : 'fs', reps },
    notes: [
      ...(s.s3
        ? [
            `Storage: S3 (Ceph RGW 16, one OSD on this machine, a radosgw of the bench's own), STORAGE_DRIVER=s3; requests and bytes counted by radosgw (perf counters req, get_b, put_b; the access log by kind), per accepted frame (API, while the batch is submitted), per image (worker, while it drains the batch) and per image of the plain loop (which reads and writes the same bucket). Per repetition, worker requests by kind: ${reps.map((r) => JSON.stringify(r.batch.s3?.worker.byKind)).join(' / ')}; API: ${reps.map((r) => JSON.stringify(r.batch.s3?.api.byKind)).join(' / ')}.`,
          ]
        : []),
      `${options.batch} unique 1280×720 PNGs per repetition${options.batch < 300 ? ' (--quick: the full run uses 300)' : ''}, variants made by processing ${PROCESSED_VARIANTS.join(', ')} (public waits for a promotion, issue 39) at the default IMAGE_ENCODE_EFFORT; the worker starts after the whole batch is accepted, so ingest and processing do not share the CPU.`,
      `Framedesk throughput: images / (last needs_review event − first media_processing event). Plain loop: the same originals read from the same ${s.s3 ? 'S3 bucket' : 'fs storage'}, libs/media processImage, variants written back to that storage, same concurrency, own process, timed inside it.`,
      `Steady latency: ${options.steadyPerSecond} submissions/s for ${options.steadyDurationMs / 1000} s, from the client receiving 202 to the needs_review event's timestamp (same clock). Single-image time: the plain loop at concurrency 1 over ${options.singleSamples} of those originals after one untimed warm-up image (median).`,
      `Where the time goes, per repetition: median media_processing → needs_review per image ${reps.map((r) => r.batch.jobSpanMs.toFixed(0)).join('/')} ms vs the loop's per-image ${reps.map((r) => r.batch.loopImageMs.toFixed(0)).join('/')} ms; worker CPU per image ${reps.map((r) => r.batch.workerCpuMsPerImage.toFixed(0)).join('/')} ms vs loop ${reps.map((r) => r.batch.loopCpuMsPerImage.toFixed(0)).join('/')} ms (the worker's includes its queue, database and status-machine work and its boot-time JIT).`,
      `Per repetition: throughput ratio ${reps.map((r) => (r.batch.framedeskPerSecond / r.batch.loopPerSecond).toFixed(2)).join('/')}; steady p50 ${reps.map((r) => r.steady.p50Ms.toFixed(0)).join('/')} ms against 1.5 × single + 50 ms = ${reps.map((r) => (1.5 * r.steady.singleMs + 50).toFixed(0)).join('/')} ms.`,
      ...failed.map(
        (r) =>
          `Not every submission reached needs_review: batch ${JSON.stringify(r.batch.statuses)}, steady ${JSON.stringify(r.steady.statuses)}.`,
      ),
      ...(profile.length
        ? ['A target was missed: a worker was profiled (--cpu-prof) draining one more batch; summary below.']
        : []),
    ],
    ...(profile.length ? { evidence: [`Pipeline: CPU profile of the worker\n${profile.join('\n')}`] } : {}),
  };
}

/** --storage=s3: what the API, the worker and the plain loop asked of the S3 server. */
function s3Rows(reps: readonly { api: S3PerUnit; worker: S3PerUnit; loop: S3PerUnit }[]) {
  if (reps.length === 0) return [];
  const pick = (f: (r: (typeof reps)[number]) => number) => reps.map(f);
  return [
    row(
      'Pipeline',
      'S3 requests per accepted frame (API)',
      '',
      pick((r) => r.api.requests),
    ),
    row(
      'Pipeline',
      'S3 bytes written per accepted frame (API)',
      'B',
      pick((r) => r.api.putBytes),
    ),
    row(
      'Pipeline',
      'S3 requests per image (worker)',
      '',
      pick((r) => r.worker.requests),
    ),
    row(
      'Pipeline',
      'S3 bytes read per image (worker)',
      'B',
      pick((r) => r.worker.getBytes),
    ),
    row(
      'Pipeline',
      'S3 bytes written per image (worker)',
      'B',
      pick((r) => r.worker.putBytes),
    ),
    row(
      'Pipeline',
      'S3 requests per image (plain loop)',
      '',
      pick((r) => r.loop.requests),
    ),
    row(
      'Pipeline',
      'S3 failed requests per image (API + worker)',
      '',
      pick((r) => r.api.failed + r.worker.failed),
    ),
  ];
}
