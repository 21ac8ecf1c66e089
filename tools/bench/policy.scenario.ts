// Issue 36 point 6: "Rule evaluation and signals add at most 3 ms of worker CPU per image, measured
// by the pipeline benchmark with a five-rule policy in force." Two measurements:
// - end to end: the worker process's CPU per image draining a batch with no policy and with the
//   five-rule policy in force on the bench channel (the difference is what evaluating the rules,
//   reading the agent's record and routing cost; the signals are measured for every frame, with
//   or without a policy, so they are in both);
// - in-process, CPU time (process.cpuUsage: every thread, libvips' too): the pixels' signals of a
//   decoded 1280×720 frame (libs/media signals.ts) and the worker's pure decision (libs/policies
//   decideRoute + policyRouting) with all five rules tried.
import { REJECT_REASONS } from '@framedesk/contracts';
import { createDatabase } from '@framedesk/db';
import { decodeRgba, signalsOfDecoded } from '@framedesk/media';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the bench times the very evaluator and store the worker uses.
import { compilePolicy, decideRoute, type FrameToRoute, policyAdmin, policyRouting } from '@framedesk/policies';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the policy the worker's round-trip spec runs with, one definition.
import { FIVE_RULE_POLICY } from '@framedesk/testing';
import { processCpuMs } from './cpu';
import { type BenchStack, waitUntilSettled } from './framedesk';
import { noisyPng } from './images';
import { type BenchOptions } from './options';
import { submitAll } from './pipeline.scenario';
import { type ScenarioResult, atMost, row } from './report';
import { median } from './stats';

type Arm = 'none' | 'policy';

/** CPU (user + system, all threads of this process) per call of `work`, in ms. */
async function cpuPerCall(count: number, work: (i: number) => Promise<unknown> | unknown): Promise<number> {
  for (let i = 0; i < Math.min(20, count); i++) await work(i); // warm-up: JIT, sharp's first load
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) await work(i);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / count;
}

/** The pure costs, in this process: signals of a decoded frame; the five rules decided. */
async function inProcess(images: readonly Buffer[], options: BenchOptions['policy']) {
  const decoded = await Promise.all(
    images.map(async (png) => {
      // RGB, as the worker's decode of these PNGs (no alpha): the alpha dropped here, untimed.
      const rgba = await decodeRgba(png);
      const data = Buffer.alloc(rgba.width * rgba.height * 3);
      for (let i = 0, o = 0; i < rgba.data.length; i += 4, o += 3) {
        data[o] = rgba.data[i]!;
        data[o + 1] = rgba.data[i + 1]!;
        data[o + 2] = rgba.data[i + 2]!;
      }
      return { data, width: rgba.width, height: rgba.height, channels: 3 as const };
    }),
  );
  const signalsMs = await cpuPerCall(options.signalImages, (i) => signalsOfDecoded(decoded[i % decoded.length]!));
  const pixels = await signalsOfDecoded(decoded[0]!);
  const compiled = compilePolicy(FIVE_RULE_POLICY, REJECT_REASONS);
  if (!compiled.ok) throw new Error(`the five-rule policy does not compile: ${JSON.stringify(compiled.problems)}`);
  const frame = (i: number): FrameToRoute => ({
    id: `sub_bench${i}`,
    channelId: 'chn_bench',
    agentId: 'agt_bench',
    frame: {
      agent: 'bench-agent',
      channel: 'bench-channel',
      metadata: { title: 'bench frame', caption: '', external_ref: '', click_zones: 0 },
      media: { type: 'image', width: 1280, height: 720, bytes: 1_000_000 },
    },
    pixels,
  });
  const prepared = { policy: compiled.policy, scores: null, agentWindow: { id: 'agt_bench', since: new Date() } };
  // A newcomer with a rejected frame 12 bits away: every rule's condition is evaluated.
  const history = { nearest: { rejected: 12 }, agent: { promoted: 3, rejected: 1 } };
  let rule: unknown;
  const evaluateMs = await cpuPerCall(options.evaluations, (i) => {
    const { outcome } = decideRoute(prepared, frame(i), history);
    rule = policyRouting(outcome, new Date())?.patch.policyOutcome['rule'];
  });
  if (rule !== 'newcomer') throw new Error(`expected the last rule to decide, got ${String(rule)}`);
  return { signalsMs, evaluateMs };
}

/** One batch drained by a fresh worker; its CPU per image, and how many frames a rule routed. */
async function drain(s: BenchStack, images: readonly Buffer[], batch: number, tag: string) {
  const ids = await submitAll(s, images, batch, tag);
  const worker = await s.stack.startWorker();
  const before = await processCpuMs(worker.child.pid!);
  const statuses = await waitUntilSettled(s.db, ids, 30 * 60_000);
  const cpuMs = ((await processCpuMs(worker.child.pid!)) ?? Number.NaN) - (before ?? Number.NaN);
  await worker.stop();
  const { rows } = await s.db.query<{ n: string }>(
    `SELECT count(*) AS n FROM submissions WHERE id = ANY($1) AND policy_outcome->>'rule' IS NOT NULL`,
    [ids],
  );
  return { cpuMsPerImage: cpuMs / ids.length, statuses, routed: Number(rows[0]!.n), count: ids.length };
}

export async function policyScenario(s: BenchStack, options: BenchOptions['policy']): Promise<ScenarioResult> {
  const images = Array.from({ length: 8 }, (_, i) => noisyPng(1280, 720, { seed: 200 + i, noiseBits: 1 }));
  const pure = await inProcess(images, options);
  const db = createDatabase({ url: s.stack.database.url, poolSize: 1 });
  const admin = policyAdmin(db);
  const reps: { none: number; policy: number; routed: number; statuses: Record<Arm, Record<string, number>> }[] = [];
  try {
    for (let rep = 0; rep < options.reps; rep++) {
      const order: Arm[] = rep % 2 === 0 ? ['none', 'policy'] : ['policy', 'none'];
      const result = {} as Record<Arm, Awaited<ReturnType<typeof drain>>>;
      for (const arm of order) {
        if (arm === 'policy') await admin.set(s.channel, FIVE_RULE_POLICY, 'bench');
        else await admin.clear(s.channel, 'bench');
        result[arm] = await drain(s, images, options.batch, `pol${rep}-${arm}`);
      }
      reps.push({
        none: result.none.cpuMsPerImage,
        policy: result.policy.cpuMsPerImage,
        routed: result.policy.routed / result.policy.count,
        statuses: { none: result.none.statuses, policy: result.policy.statuses },
      });
    }
  } finally {
    await admin.clear(s.channel, 'bench').catch(() => false);
    await db.close();
  }
  const added = reps.map((r) => r.policy - r.none);
  return {
    name: 'Review policy cost',
    rows: [
      row(
        'Policy',
        'worker CPU per image, no policy',
        'ms',
        reps.map((r) => r.none),
      ),
      row(
        'Policy',
        'worker CPU per image, five-rule policy',
        'ms',
        reps.map((r) => r.policy),
      ),
      row('Policy', 'added by the policy (end to end)', 'ms', added, atMost(3)),
      row('Policy', 'signals per image, in-process', 'ms', [pure.signalsMs]),
      row('Policy', 'five rules decided and routed, in-process', 'ms', [pure.evaluateMs]),
      row('Policy', 'signals + rules, in-process', 'ms', [pure.signalsMs + pure.evaluateMs], atMost(3)),
    ],
    details: { reps, pure, policy: FIVE_RULE_POLICY },
    notes: [
      `${options.batch} unique 1280×720 PNGs per batch, each batch drained by a fresh worker (default concurrency); per repetition one batch with no policy and one with the five-rule policy of libs/testing FIVE_RULE_POLICY (docs/policies.md's examples: blank, copy-of-rejected, trusted-agent sampled, a priority rule, a due rule) on the bench channel, the order alternating. Worker CPU is /proc utime+stime of the worker process from its readiness to the batch settled: CPU time, not wall time, because other work shares this machine.`,
      `Share of the policy batches' frames a rule routed: ${reps.map((r) => (r.routed * 100).toFixed(0)).join('/')} % (the bench agent has no decisions: 'newcomer' matches after the four rules before it were tried). The signals are measured for every frame with or without a policy, so the end-to-end difference leaves them out; the in-process rows give them.`,
      `In-process: signals of a decoded RGB 1280×720 frame (flatten, greyscale, resize to 256 px, the JS pass: libs/media signalsOfDecoded) over ${options.signalImages} calls; decideRoute + policyRouting with all five rules tried over ${options.evaluations} calls; process.cpuUsage, after 20 warm-up calls. Median added end to end: ${median(added).toFixed(1)} ms.`,
    ],
  };
}
