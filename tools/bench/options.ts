/** What one `npm run bench` does: the full run, or `--quick` (under two minutes, fewer samples). */

export const SCENARIOS = [
  'pipeline',
  'policy',
  'memory',
  'ingest',
  'review',
  'similar',
  'variants',
  'team',
  'feedback',
  'video',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export interface BenchOptions {
  readonly quick: boolean;
  /** Where the API and worker stack stores (`--storage=s3`: Ceph RGW, the `rgw` engine; s3-meter.ts). */
  readonly storage: 'fs' | 's3';
  readonly only: ReadonlySet<ScenarioName>;
  readonly ingest: {
    readonly reps: number;
    readonly concurrency: number;
    readonly durationMs: number;
    readonly warmupMs: number;
    /** Distinct base images; each request still gets unique bytes. */
    readonly images: number;
    /** CPU-profile the API when a target is missed (always in a full run; --profile with --quick). */
    readonly profile: boolean;
  };
  readonly pipeline: {
    readonly reps: number;
    readonly batch: number;
    readonly steadyPerSecond: number;
    readonly steadyDurationMs: number;
    /** Images timed one at a time for the plain single-image processing time. */
    readonly singleSamples: number;
    /** CPU-profile a worker draining a batch when a target is missed (as for ingest). */
    readonly profile: boolean;
  };
  /** The review policy's cost (issue 36 point 6): the pipeline with a five-rule policy vs none. */
  readonly policy: {
    /** Each repetition drains one batch without and one with the policy (order alternating). */
    readonly reps: number;
    readonly batch: number;
    /** In-process: images whose signals are measured, and evaluations of the policy timed. */
    readonly signalImages: number;
    readonly evaluations: number;
  };
  readonly memory: {
    readonly reps: number;
    readonly uploads: number;
    readonly overLimit: number;
    readonly uploadBytes: number;
    readonly limitBytes: number;
    readonly overLimitBytes: number;
  };
  readonly variants: {
    readonly reps: number;
    /** Frames per corpus class (photo-like, cards, charts, screenshots). */
    readonly perClass: number;
  };
  readonly review: {
    readonly reps: number;
    readonly submissions: number;
    readonly channels: number;
    readonly agents: number;
    /** One more channel holds this many times a regular channel's submissions. */
    readonly bigChannelFactor: number;
    /** Calls per query per repetition. */
    readonly iterations: number;
  };
  /** The Team view's statement (GET /review/team) over a history of decided frames. */
  readonly team: {
    readonly reps: number;
    readonly frames: number;
    readonly reviewers: number;
    readonly iterations: number;
  };
  /** The agent's feedback record (GET /v1/agents/{slug}/feedback) of a long-lived agent vs a fresh one. */
  readonly feedback: {
    readonly reps: number;
    readonly frames: number;
    readonly iterations: number;
  };
  /** The local video driver's ffmpeg CPU per second of video (video.scenario.ts). */
  readonly video: {
    readonly reps: number;
    readonly seconds: number;
  };
}

const MB = 1024 * 1024;

export function parseOptions(argv: readonly string[]): BenchOptions {
  const quick = argv.includes('--quick');
  const value = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const storage = value('storage') ?? 'fs';
  if (storage !== 'fs' && storage !== 's3') throw new Error(`--storage: fs or s3, not ${storage}`);
  // On S3 the run is about the storage's cost: the two scenarios that store, unless told otherwise.
  const onlyArg = value('only') ?? (storage === 's3' ? 'pipeline,ingest' : undefined);
  const only = new Set<ScenarioName>(
    onlyArg
      ? onlyArg.split(',').map((s) => {
          if (!(SCENARIOS as readonly string[]).includes(s))
            throw new Error(`--only: unknown scenario ${s} (one of ${SCENARIOS.join(', ')})`);
          return s as ScenarioName;
        })
      : SCENARIOS,
  );
  const repsArg = value('reps');
  const durationArg = value('duration');
  const reps = (quickDefault: number, fullDefault: number) =>
    repsArg ? Number(repsArg) : quick ? quickDefault : fullDefault;
  return {
    quick,
    storage,
    only,
    ingest: {
      reps: reps(1, 3),
      concurrency: 32,
      durationMs: durationArg ? Number(durationArg) : quick ? 5_000 : 15_000,
      warmupMs: quick ? 1_500 : 3_000,
      images: 8,
      profile: !quick || argv.includes('--profile'),
    },
    pipeline: {
      reps: reps(1, 3),
      batch: Number(value('batch') ?? (quick ? 40 : 300)),
      steadyPerSecond: 2,
      steadyDurationMs: durationArg ? Number(durationArg) : quick ? 6_000 : 30_000,
      singleSamples: quick ? 5 : 20,
      profile: !quick || argv.includes('--profile'),
    },
    policy: {
      reps: reps(2, 4),
      batch: Number(value('batch') ?? (quick ? 40 : 120)),
      signalImages: quick ? 40 : 200,
      evaluations: quick ? 20_000 : 100_000,
    },
    memory: {
      reps: reps(2, 3),
      uploads: 16,
      overLimit: 16,
      uploadBytes: 40 * MB,
      limitBytes: 50 * MB,
      overLimitBytes: 60 * MB,
    },
    variants: {
      reps: reps(1, 3),
      perClass: Number(value('per-class') ?? (quick ? 2 : 4)),
    },
    review: {
      reps: reps(1, 3),
      submissions: Number(value('rows') ?? (quick ? 50_000 : 500_000)),
      channels: 50,
      agents: 10,
      bigChannelFactor: 10,
      iterations: quick ? 200 : 1_000,
    },
    team: {
      reps: reps(1, 3),
      frames: Number(value('frames') ?? (quick ? 50_000 : 500_000)),
      reviewers: 20,
      iterations: quick ? 10 : 30,
    },
    feedback: {
      reps: reps(1, 3),
      frames: Number(value('frames') ?? (quick ? 50_000 : 500_000)),
      iterations: quick ? 10 : 30,
    },
    video: {
      reps: reps(2, 5),
      seconds: quick ? 10 : 30,
    },
  };
}
