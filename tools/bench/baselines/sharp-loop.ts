// The plain loop the pipeline is compared with: the same originals from the same storage, the
// same variants through libs/media's processImage, written back to the same storage, at the same
// concurrency, with no queue, no database and no status machine.
//   node --import tsx sharp-loop.ts <job.json>   → prints one JSON line { elapsedMs, cpuMs, perImageMs }
import { readFile } from 'node:fs/promises';
import { parseVariantName, type VariantSpec } from '@framedesk/config';
import { configureImageProcessing, processImage } from '@framedesk/media';
import { createFsStorage, createS3Storage, readObject, type S3StorageOptions } from '@framedesk/storage';

export interface SharpLoopJob {
  readonly storageRoot: string;
  /** Read and write this S3 server instead of `storageRoot` (the bench's --storage=s3). */
  readonly s3?: S3StorageOptions;
  readonly bucket: string;
  readonly keys: readonly string[];
  readonly variants: readonly string[];
  readonly concurrency: number;
  /** Variants are written under `<outputPrefix>/<n>/<name>.webp`. */
  readonly outputPrefix: string;
  /** Process the first image once, untimed, so one-at-a-time figures exclude sharp's first load. */
  readonly warmup?: boolean;
}

const job = JSON.parse(await readFile(process.argv[2]!, 'utf8')) as SharpLoopJob;
const variants = job.variants.map((name) => parseVariantName(name)) as VariantSpec[];
configureImageProcessing(); // as the worker does at boot
const storage = job.s3 ? createS3Storage(job.s3) : createFsStorage(job.storageRoot);

if (job.warmup && job.keys[0]) await processImage(await readObject(storage, job.bucket, job.keys[0]), variants);

const perImageMs: number[] = [];
let next = 0;
const started = performance.now();
const cpuBefore = process.cpuUsage();
const lane = async () => {
  while (next < job.keys.length) {
    const n = next++;
    const t0 = performance.now();
    const original = await readObject(storage, job.bucket, job.keys[n]!);
    const processed = await processImage(original, variants);
    for (const variant of processed.variants) {
      await storage.put(job.bucket, `${job.outputPrefix}/${n}/${variant.name}.webp`, variant.data, {
        contentType: variant.contentType,
      });
    }
    perImageMs.push(performance.now() - t0);
  }
};
await Promise.all(Array.from({ length: job.concurrency }, lane));
const cpu = process.cpuUsage(cpuBefore);
process.stdout.write(
  `${JSON.stringify({ elapsedMs: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000, perImageMs })}\n`,
);
