import { readFile } from 'node:fs/promises';
import { loadSettings } from '@framedesk/config';
import { isDomainError } from '@framedesk/domain';
import {
  describeRule,
  formatProblem,
  type PolicySimulation,
  policyAdmin,
  simulatePolicy,
  simulationSince,
} from '@framedesk/policies';
import { type Command, type CommandContext, UsageError } from '../command';
import { actor, operatorCommand, slugArg } from './account-command';

/** The policy file as JSON; a file that is missing or not JSON is a usage error (exit 2). */
async function readPolicyFile(path: string | undefined): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path ?? '', 'utf8');
  } catch {
    throw new UsageError(`cannot read the policy file "${path ?? ''}"`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`the policy file is not JSON: ${(error as Error).message}`);
  }
}

/** Runs `work`; a refused policy prints every problem on stderr and exits 2, changing nothing. */
async function withProblems(ctx: CommandContext, work: () => Promise<number>): Promise<number> {
  try {
    return await work();
  } catch (error) {
    if (isDomainError(error) && error.code === 'policy_invalid') {
      ctx.io.err(`framedesk: ${error.detail}`);
      for (const problem of error.errors ?? []) ctx.io.err(`  ${problem.detail}`);
      return 2;
    }
    if (isDomainError(error)) throw new UsageError(error.detail);
    throw error;
  }
}

function simulationText(result: PolicySimulation): string {
  return [
    `${result.frames} frames decided by people since ${result.since}`,
    ...result.rules.map((r) => `  ${describeRule(r)}`),
    `  no rule matched: ${result.unmatched.count} (people promoted ${result.unmatched.people_promoted}, rejected ${result.unmatched.people_rejected})`,
  ].join('\n');
}

export const policyCommands: Record<string, Command> = {
  // docs/policies.md: validated whole before anything changes; recorded in policy_changes.
  'policy set': {
    usage: 'policy set <channel> <file.json> [--json]',
    positionals: 2,
    options: { json: { type: 'boolean' } },
    run: (ctx) =>
      withProblems(ctx, async () => {
        const slug = slugArg(ctx.positionals[0], 'channel');
        const file = await readPolicyFile(ctx.positionals[1]);
        const set = await policyAdmin(ctx.db()).set(slug, file, actor());
        const rules = set.file.rules.length;
        ctx.io.out(
          ctx.values['json']
            ? JSON.stringify({ channel: slug, version: set.version, rules })
            : `policy of ${slug} set: ${rules} rule(s), version ${set.version}`,
        );
        return 0;
      }),
  },
  'policy show': operatorCommand(
    'policy show <channel>',
    1,
    async (ctx) => {
      const admin = policyAdmin(ctx.db());
      const slug = slugArg(ctx.positionals[0], 'channel');
      const row = await admin.show(slug);
      // A stored policy that no longer compiles holds its channel's frames for people (docs/policies.md).
      const problems = row ? await admin.problems(slug) : null;
      return row
        ? {
            policy: row.policy,
            version: row.version,
            updated_at: row.updatedAt.toISOString(),
            updated_by: row.updatedBy,
            ...(problems ? { compiles: false, problems } : {}),
          }
        : { policy: null };
    },
    (view) =>
      view.policy === null
        ? 'no policy: every processed frame follows approval_defaults'
        : [
            `version ${view.version}, set ${view.updated_at} by ${view.updated_by}`,
            ...('problems' in view && view.problems
              ? [
                  'DOES NOT COMPILE: every frame of the channel is held for people until the policy is set again',
                  ...view.problems.map((p) => `  ${p}`),
                ]
              : []),
            JSON.stringify(view.policy, null, 2),
          ].join('\n'),
  ),
  'policy clear': operatorCommand(
    'policy clear <channel>',
    1,
    async (ctx) => ({ cleared: await policyAdmin(ctx.db()).clear(slugArg(ctx.positionals[0], 'channel'), actor()) }),
    (r) => (r.cleared ? 'policy cleared' : 'no policy to clear'),
  ),
  'policy simulate': {
    usage: 'policy simulate <channel> <file.json> [--since 30d] [--json]',
    positionals: 2,
    options: { json: { type: 'boolean' }, since: { type: 'string' } },
    run: (ctx) =>
      withProblems(ctx, async () => {
        const admin = policyAdmin(ctx.db());
        const channel = await admin.channelOf(slugArg(ctx.positionals[0], 'channel'));
        const file = await readPolicyFile(ctx.positionals[1]);
        // The API's rule (libs/policies simulationSince): up to 365 days; else exit 2.
        const since = simulationSince(ctx.values['since'] ?? '30d', new Date(), '--since');
        const compiled = await admin.validate(channel.id, file);
        if (!compiled.ok) {
          ctx.io.err(`framedesk: The policy has ${compiled.problems.length} problem(s).`);
          for (const p of compiled.problems) ctx.io.err(`  ${formatProblem(p)}`);
          return 2;
        }
        const result = await simulatePolicy(ctx.db(), {
          channelId: channel.id,
          channelSlug: channel.slug,
          policy: compiled.policy,
          since,
          deadlineMs: loadSettings(ctx.io.env).SIMULATE_DEADLINE_SECONDS * 1000,
        });
        ctx.io.out(ctx.values['json'] ? JSON.stringify(result) : simulationText(result));
        return 0;
      }),
  },
};
