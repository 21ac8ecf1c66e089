// `npm run bench [-- --quick] [--only=pipeline,policy,memory,ingest,review,similar,variants,team,feedback,video] [--reps=N] [--profile] [--storage=s3]`
// Starts what it needs (databases, Redis prefixes, the real API and worker processes, the
// baselines), runs the scenarios, prints the table and writes bench/results/. Timings never
// fail the run; a scenario that cannot run does (exit 1), after the others have run.
import os from 'node:os';
import { BENCH_ENV, type BenchStack, startBenchStack } from './framedesk';
import { ingestScenario } from './ingest.scenario';
import { memoryScenario } from './memory.scenario';
import { nearDuplicateOptions, nearDuplicateScenario } from './near-duplicates.scenario';
import { parseOptions, type ScenarioName } from './options';
import { pipelineScenario } from './pipeline.scenario';
import { policyScenario } from './policy.scenario';
import { machine, markdownTable, type ScenarioResult, writeResults } from './report';
import { reviewScenario } from './review.scenario';
import { type S3Meter, startS3Meter } from './s3-meter';
import { variantsScenario } from './variants.scenario';
import { teamScenario } from './team.scenario';
import { feedbackScenario } from './feedback.scenario';
import { videoScenario } from './video.scenario';

const log = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

const options = parseOptions(process.argv.slice(2));
const startedAt = new Date();
const machineInfo = machine();
const results: ScenarioResult[] = [];
const failures: string[] = [];
const running = new Set<BenchStack>();
const configs: Record<string, unknown> = {};

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping what was started`);
    void Promise.allSettled([...running].map((s) => s.stop())).then(() => process.exit(130));
  });
}

async function withStack(
  name: string,
  options: Parameters<typeof startBenchStack>[0],
  work: (s: BenchStack) => Promise<void>,
): Promise<void> {
  log(`starting the stack (${name})`);
  let stack: BenchStack;
  try {
    stack = await startBenchStack(options);
  } catch (error) {
    failures.push(`${name}: the stack did not start: ${String(error).split('\n').slice(0, 6).join(' ')}`);
    return;
  }
  running.add(stack);
  configs[name] = { env: BENCH_ENV, project: stack.config };
  try {
    await work(stack);
  } finally {
    await stack.stop();
    running.delete(stack);
  }
}

async function scenario(name: string, work: () => Promise<ScenarioResult>): Promise<void> {
  log(`${name}…`);
  const started = performance.now();
  try {
    results.push(await work());
    log(`${name} done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } catch (error) {
    failures.push(
      `${name}: ${error instanceof Error ? error.message.split('\n').slice(0, 6).join(' ') : String(error)}`,
    );
    log(`${name} FAILED: ${String(error)}`);
  }
}

// First, in this process and before any stack starts: the encoder's CPU is measured here.
if (options.only.has('variants')) await scenario('Variants', () => variantsScenario(options.variants));
if (options.only.has('video')) await scenario('Video processing', () => videoScenario(options.video));
if (['pipeline', 'policy', 'memory', 'ingest'].some((n) => options.only.has(n as ScenarioName))) {
  // One stack for the three (starting one costs seconds). The pipeline goes first, while the queue
  // is empty; it stops its workers, so memory and ingest then measure the API alone. The raised
  // limit the memory scenario needs does not touch 1 MB frames.
  let s3: S3Meter | undefined;
  if (options.storage === 's3') {
    log('starting the S3 server (rgw engine) and the bench gateway');
    s3 = await startS3Meter().catch((error: unknown) => {
      failures.push(`the S3 server did not start: ${String(error).split('\n').slice(0, 6).join(' ')}`);
      return undefined;
    });
  }
  const stackOptions = { workers: 0, multipartMaxBytes: options.memory.limitBytes, ...(s3 ? { s3 } : {}) };
  if (options.storage === 'fs' || s3)
    await withStack(s3 ? 'api+worker on s3' : 'api+worker', stackOptions, async (s) => {
      if (options.only.has('pipeline')) await scenario('Pipeline', () => pipelineScenario(s, options.pipeline));
      if (options.only.has('policy')) await scenario('Review policy cost', () => policyScenario(s, options.policy));
      if (options.only.has('memory')) await scenario('Memory', () => memoryScenario(s, options.memory));
      if (options.only.has('ingest')) await scenario('Ingest', () => ingestScenario(s, options.ingest));
    }).finally(() => s3?.stop());
}
if (options.only.has('review')) await scenario('Review queries', () => reviewScenario(options.review));
if (options.only.has('similar'))
  await scenario('Near-duplicate search', () =>
    nearDuplicateScenario(nearDuplicateOptions(options.quick, options.review.reps)),
  );
if (options.only.has('team')) await scenario('Team view', () => teamScenario(options.team));
if (options.only.has('feedback')) await scenario('Agent feedback record', () => feedbackScenario(options.feedback));

const durationMs = Date.now() - startedAt.getTime();
const files = await writeResults({
  startedAt,
  options,
  results,
  failures,
  machine: { ...machineInfo, configs, loadAverageAtEnd: os.loadavg() },
  durationMs,
});
process.stdout.write(`\n${markdownTable(results)}\n\n`);
for (const failure of failures) process.stdout.write(`NOT RUN: ${failure}\n`);
process.stdout.write(`wrote ${files.json}\n      ${files.markdown}\n(${(durationMs / 1000).toFixed(0)} s)\n`);
process.exit(failures.length > 0 ? 1 : 0);
