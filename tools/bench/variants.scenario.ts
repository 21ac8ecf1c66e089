import { createHash } from 'node:crypto';
import { parseVariantName, type VariantSpec } from '@framedesk/config';
import {
  configureImageProcessing,
  decodeRgba,
  DEFAULT_IMAGE_ENCODE_EFFORT,
  encodeSettingsFor,
  type ImageEncodeSettings,
  LEGACY_ENCODE_SETTINGS,
  processImage,
  renderVariants,
  variantReference,
} from '@framedesk/media';
import { ssim } from 'ssim.js';
import { exampleConfig } from './framedesk';
import { type ScenarioResult, row } from './report';
import { median } from './stats';
import { buildCorpus, CORPUS_CLASSES, type CorpusClass, type CorpusImage } from './variants-corpus';

const SCENARIO = 'Variants';
/** Issue 39's bounds, per corpus class, against today's settings measured in the same run. */
const TARGET = { cpu: 0.5, bytes: 1.1, ssimDrop: 0.005 } as const;
/** Share of frames rejected in the realistic mix (their `public` is never made once it is lazy). */
const REJECTED_SHARE = 0.4;

export interface VariantsBenchOptions {
  readonly reps: number;
  /** Images per corpus class. */
  readonly perClass: number;
}

interface Candidate {
  readonly name: string;
  readonly encode: ImageEncodeSettings;
  /** Made when the frame is processed; `public` left for promotion when it is not among them. */
  readonly variants: readonly string[];
}

const LARGE = 400_000; // pixels: the 1024-wide preview and public are large, a thumbnail is not.
const chosen = encodeSettingsFor(DEFAULT_IMAGE_ENCODE_EFFORT);
const ALL = exampleConfig.delivery.vendor_image_variants;
const WITHOUT_PUBLIC = ALL.filter((v) => v !== 'public');

function candidates(): Candidate[] {
  const legacy = LEGACY_ENCODE_SETTINGS;
  const at = (effort: number, extra: Partial<ImageEncodeSettings> = {}): ImageEncodeSettings => ({
    ...legacy,
    effort,
    ...extra,
  });
  return [
    { name: 'today: effort 4', encode: legacy, variants: ALL },
    { name: 'effort 4 + smartSubsample', encode: at(4, { smartSubsample: true }), variants: ALL },
    { name: 'effort 4, public shares preview when equal', encode: at(4, { shareSameSize: true }), variants: ALL },
    { name: 'effort 3', encode: at(3), variants: ALL },
    { name: 'effort 2', encode: at(2), variants: ALL },
    { name: 'effort 1', encode: at(1), variants: ALL },
    { name: 'effort 0', encode: at(0), variants: ALL },
    { name: 'effort 2 + smartSubsample', encode: at(2, { smartSubsample: true }), variants: ALL },
    { name: 'effort 4, large variants at 2', encode: at(4, { large: { minPixels: LARGE, effort: 2 } }), variants: ALL },
    { name: 'effort 4, large variants at 0', encode: at(4, { large: { minPixels: LARGE, effort: 0 } }), variants: ALL },
    { name: `chosen (effort ${chosen.effort}, shared sizes)`, encode: chosen, variants: ALL },
    {
      name: `chosen, public on promotion (${(1 - REJECTED_SHARE) * 100} % promoted)`,
      encode: chosen,
      variants: WITHOUT_PUBLIC,
    },
  ];
}

const specs = (names: readonly string[]): VariantSpec[] => names.map((n) => parseVariantName(n)!);

/** CPU (user + system, all threads of this process) of one processImage, in ms. */
async function timed(image: CorpusImage, names: readonly string[], encode: ImageEncodeSettings) {
  const before = process.cpuUsage();
  const result = await processImage(image.png, specs(names), { encode });
  const used = process.cpuUsage(before);
  return { result, cpuMs: (used.user + used.system) / 1000 };
}

/** SSIM of bytes already measured (candidates that encode a variant alike give the same bytes). */
const ssimOfBytes = new Map<string, number>();

/** Per variant: bytes and SSIM (luma, full resolution) against the losslessly resized original. */
async function quality(image: CorpusImage, variants: Awaited<ReturnType<typeof timed>>['result']['variants']) {
  const out: Record<string, { bytes: number; ssim: number }> = {};
  for (const variant of variants) {
    const key = createHash('sha256').update(variant.data).digest('hex');
    let value = ssimOfBytes.get(key);
    if (value === undefined) {
      const reference = await variantReference(image.png, variant);
      const decoded = await decodeRgba(variant.data);
      value = ssim(reference, decoded, { ssim: 'weber', downsample: false }).mssim;
      ssimOfBytes.set(key, value);
    }
    out[variant.name] = { bytes: variant.byteSize, ssim: value };
  }
  return out;
}

type Quality = Awaited<ReturnType<typeof quality>>;

/**
 * CPU of the `public` job for a frame (chosen settings), as libs/submissions' publicVariantService
 * does it: a frame whose preview is its own size gets preview's bytes copied (no pixel work,
 * counted as 0 here); any other is decoded and encoded whole, without a fingerprint.
 */
async function publicJobCpu(image: CorpusImage): Promise<number> {
  if (image.width <= 1024 && image.height <= 1024) return 0;
  const before = process.cpuUsage();
  await renderVariants(image.png, specs(['public']), { encode: chosen });
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

interface Measured {
  /** cpu[candidate][image] per repetition. */
  readonly cpu: number[][][];
  /** The `public` job alone, per image, per repetition (chosen settings). */
  readonly publicCpu: number[][];
  readonly quality: Quality[][];
}

async function measure(corpus: readonly CorpusImage[], list: readonly Candidate[], reps: number): Promise<Measured> {
  const cpu = Array.from({ length: reps }, () => list.map(() => corpus.map(() => Number.NaN)));
  const publicCpu = Array.from({ length: reps }, () => corpus.map(() => Number.NaN));
  const qualities: Quality[][] = list.map(() => []);
  // Warm-up: sharp's first load and libwebp's tables stay out of the figures.
  await timed(corpus[0]!, ALL, LEGACY_ENCODE_SETTINGS);
  for (let rep = 0; rep < reps; rep++) {
    for (const [i, image] of corpus.entries()) {
      // Every setting on the same image one after the other, in a rotating order, so load on the
      // shared machine falls on all of them alike.
      for (let k = 0; k < list.length; k++) {
        const c = (k + i + rep) % list.length;
        const candidate = list[c]!;
        const { result, cpuMs } = await timed(image, candidate.variants, candidate.encode);
        cpu[rep]![c]![i] = cpuMs;
        // Bytes and pixels are the same on every repetition (checked by libs/media's tests).
        if (rep === 0) qualities[c]![i] = await quality(image, result.variants);
      }
      publicCpu[rep]![i] = await publicJobCpu(image);
    }
  }
  return { cpu, publicCpu, quality: qualities };
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
const fmt = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

interface ClassFigures {
  cpuRatio: number[];
  /** Per variant, over the class: bytes ratio and SSIM change against today. */
  variants: Record<string, { bytesRatio: number; ssimDelta: number; ssim: number }>;
}

function classFigures(
  m: Measured,
  corpus: readonly CorpusImage[],
  c: number,
  kind: CorpusClass,
  lazy: boolean,
): ClassFigures {
  // The lazy candidate comes last, right after the chosen settings with every variant.
  const idx = corpus.flatMap((image, i) => (image.kind === kind ? [i] : []));
  const cpuRatio = m.cpu.map((rep, r) => {
    const own =
      sum(idx.map((i) => rep[c]![i]!)) + (lazy ? (1 - REJECTED_SHARE) * sum(idx.map((i) => m.publicCpu[r]![i]!)) : 0);
    return own / sum(idx.map((i) => rep[0]![i]!));
  });
  const variants: ClassFigures['variants'] = {};
  for (const name of ALL) {
    const today = idx.map((i) => m.quality[0]![i]![name]!);
    // The lazy candidate's `public` is made with the chosen settings, as the job makes it.
    const source = lazy && name === 'public' ? m.quality.length - 2 : c;
    const mine = idx.map((i) => m.quality[source]![i]![name]!);
    variants[name] = {
      bytesRatio: sum(mine.map((q) => q.bytes)) / sum(today.map((q) => q.bytes)),
      ssimDelta: Math.min(...mine.map((q, k) => q.ssim - today[k]!.ssim)),
      ssim: median(mine.map((q) => q.ssim)),
    };
  }
  return { cpuRatio, variants };
}

/**
 * Issue 39: worker CPU per image, bytes per variant and SSIM per variant for each candidate
 * encoder setting over a corpus of photo-like scenes, text cards, charts and screenshots, beside
 * today's settings in the same run. In this process, one image at a time, libvips on one thread
 * (as the worker on a 2-core machine).
 */
export async function variantsScenario(options: VariantsBenchOptions): Promise<ScenarioResult> {
  configureImageProcessing(1);
  const corpus = await buildCorpus(options.perClass);
  const list = candidates();
  const m = await measure(corpus, list, options.reps);
  const rows = [];
  const table: string[] = [
    'candidate | class | CPU × today | ' + ALL.map((v) => `${v} bytes × / SSIM Δ`).join(' | ') + ' | met',
  ];
  const perCandidate: Record<string, Record<string, ClassFigures>> = {};
  for (const [c, candidate] of list.entries()) {
    const lazy = !candidate.variants.includes('public');
    const byClass = Object.fromEntries(
      CORPUS_CLASSES.map((kind) => [kind, classFigures(m, corpus, c, kind, lazy)]),
    ) as Record<CorpusClass, ClassFigures>;
    perCandidate[candidate.name] = byClass;
    if (c === 0) continue;
    const allCpu = m.cpu.map((rep, r) => {
      const own = sum(rep[c]!) + (lazy ? (1 - REJECTED_SHARE) * sum(m.publicCpu[r]!) : 0);
      return own / sum(rep[0]!);
    });
    let met = true;
    let worstBytes = 0;
    let worstSsim = Number.POSITIVE_INFINITY;
    for (const kind of CORPUS_CLASSES) {
      const f = byClass[kind];
      const cpuOk = median(f.cpuRatio) <= TARGET.cpu;
      const vs = Object.values(f.variants);
      const bytesOk = vs.every((v) => v.bytesRatio <= TARGET.bytes);
      const ssimOk = vs.every((v) => v.ssimDelta >= -TARGET.ssimDrop);
      worstBytes = Math.max(worstBytes, ...vs.map((v) => v.bytesRatio));
      worstSsim = Math.min(worstSsim, ...vs.map((v) => v.ssimDelta));
      met &&= cpuOk && bytesOk && ssimOk;
      table.push(
        `${candidate.name} | ${kind} | ${fmt(median(f.cpuRatio))} | ` +
          ALL.map((v) => `${fmt(f.variants[v]!.bytesRatio)} / ${fmt(f.variants[v]!.ssimDelta * 1000, 1)}‰`).join(
            ' | ',
          ) +
          ` | ${cpuOk && bytesOk && ssimOk ? 'yes' : 'no'}`,
      );
    }
    rows.push(
      row(SCENARIO, `${candidate.name}: CPU per image × today`, '×', allCpu, () => ({
        text: `≤ ${TARGET.cpu}×, bytes ≤ ${TARGET.bytes}×, SSIM ≥ today − ${TARGET.ssimDrop}, each class`,
        met,
      })),
      row(SCENARIO, `${candidate.name}: worst class and variant, bytes × today`, '×', [worstBytes]),
      row(SCENARIO, `${candidate.name}: worst class and variant, SSIM − today's (‰)`, '‰', [worstSsim * 1000]),
    );
  }
  const todayMs = m.cpu.map((rep) => sum(rep[0]!) / corpus.length);
  const publicShare = m.cpu.map((rep, r) => sum(m.publicCpu[r]!) / sum(rep[list.length - 2]!));
  const processingMs = m.cpu.map((rep) => sum(rep[list.length - 1]!) / corpus.length);
  const publicJobMs = m.publicCpu.map((rep) => sum(rep) / corpus.length);
  rows.unshift(
    row(SCENARIO, 'today: worker CPU per image (thumbnail, preview, public)', 'ms', todayMs),
    row(SCENARIO, 'chosen settings: processing without public, CPU per image', 'ms', processingMs),
    row(SCENARIO, 'chosen settings: the public job, CPU per image (0 when preview is its size)', 'ms', publicJobMs),
    row(
      SCENARIO,
      'chosen settings: the public job against processing with every variant',
      '%',
      publicShare.map((s) => s * 100),
    ),
  );
  const todaySsim = Object.fromEntries(
    CORPUS_CLASSES.map((kind) => [
      kind,
      Object.fromEntries(ALL.map((v) => [v, fmt(perCandidate[list[0]!.name]![kind]!.variants[v]!.ssim, 4)])),
    ]),
  );
  return {
    name: SCENARIO,
    rows,
    details: {
      corpus: corpus.map(({ name, kind, width, height, png }) => ({ name, kind, width, height, bytes: png.length })),
      cpu: m.cpu,
      publicCpu: m.publicCpu,
      quality: m.quality,
      candidates: list,
      perCandidate,
    },
    notes: [
      `Corpus: ${corpus.length} frames, ${options.perClass} per class (${CORPUS_CLASSES.join(', ')}) at 1280×720, 1920×1080 and 1024×768, drawn in the run (tools/bench/variants-corpus.ts); variants ${ALL.join(', ')} at quality 82.`,
      'CPU: process CPU time around processImage (decode, variants, fingerprint), one image at a time, libvips on one thread; every candidate runs on the same image one after the other, so the ratios are measured side by side.',
      "SSIM: ssim.js (Weber, luma, no downsampling) of each variant against the original resized the same way without compression; Δ is the worst image of the class, in thousandths. Bytes: the class total against today's.",
      `The last candidate processes without public; its CPU adds the public job (chosen settings) for the ${(1 - REJECTED_SHARE) * 100} % of frames promoted (${REJECTED_SHARE * 100} % rejected): CPU per submitted frame.`,
      `Today's SSIM (median of the class): ${JSON.stringify(todaySsim)}.`,
    ],
    evidence: [table.join('\n')],
  };
}
