import { createReviewer, generateApiKey, generatePassword } from '@framedesk/access';
import { createClient, isFramedeskError } from '@framedesk/client';
import { loadSettings } from '@framedesk/config';
import { frameDateOf } from '@framedesk/domain';
import { policyAdmin } from '@framedesk/policies';
import { DEMO_POLICY, renderSamples, SAMPLE_CHANNELS, seedSamples } from '@framedesk/samples';
import type { Command } from '../command';
import { serviceReviewer } from '../demo/demo-reviewer';
import { readPendingSamples, removePendingSamples, writePendingSamples } from '../demo/pending-samples';
import { DEFAULT_BASE_URL } from './submit.command';

export const DEMO = { channel: 'demo', agent: 'demo-agent', reviewer: 'reviewer@framedesk.local' } as const;

export const demoCommands: Record<string, Command> = {
  // Used by `npm start`: on the first run only, a channel, an agent with a key, and a reviewer.
  // With --samples FILE, also the sample channels, and FILE records that sample frames are to be
  // sent (`demo samples FILE`, run by `npm start` once the API and worker are up).
  'demo seed': {
    usage: 'demo seed [--samples FILE]',
    positionals: 0,
    options: { samples: { type: 'string' } },
    async run({ db, io, values }) {
      const database = db();
      if (await database.repos.agents.findBySlug(DEMO.agent)) return;
      const samplesFile = values['samples'] as string | undefined;
      const channels = samplesFile ? SAMPLE_CHANNELS : SAMPLE_CHANNELS.filter((c) => c.slug === DEMO.channel);
      const key = generateApiKey();
      await database.transaction(async (repos) => {
        const ids = [];
        for (const c of channels) ids.push((await repos.channels.ensure(c.slug, c.name)).channel.id);
        const agent = await repos.agents.create(DEMO.agent, 'Demo agent');
        await repos.agents.allowChannels(agent.id, ids);
        await repos.apiKeys.create({ agentId: agent.id, prefix: key.prefix, hash: key.hash });
      });
      const password = generatePassword();
      if (!(await database.repos.reviewers.findByEmail(DEMO.reviewer))) {
        // The first account of an installation administers it (channels, ops, people).
        await createReviewer(
          database,
          { email: DEMO.reviewer, password, name: 'Demo reviewer', role: 'admin' },
          'cli:demo',
        );
      }
      // The samples show a decision by a rule: the demo channel's policy rejects a blank render.
      if (samplesFile) await policyAdmin(database).set(DEMO.channel, DEMO_POLICY, 'cli:demo');
      if (samplesFile) await writePendingSamples(samplesFile, { api_key: key.key, today: frameDateOf(new Date()) });
      io.out(
        [
          '',
          '  First run: demo data created. These are shown once; keep them.',
          `  Agent API key (agent ${DEMO.agent}, channels ${channels.map((c) => c.slug).join(', ')}): ${key.key}`,
          `  Workbench login: ${DEMO.reviewer} / ${password}`,
          '',
        ].join('\n'),
      );
    },
  },

  // Sends the sample frames `demo seed --samples FILE` left pending, as the demo agent through the
  // agent API at --base-url, and decides some as the demo reviewer; then removes FILE. Nothing is
  // pending (no FILE): does nothing. Interrupted: run it again, nothing is sent twice.
  'demo samples': {
    usage: 'demo samples <FILE> [--base-url URL]',
    positionals: 1,
    options: { 'base-url': { type: 'string' } },
    async run({ positionals, values, db, io }) {
      const file = positionals[0]!;
      const pending = await readPendingSamples(file);
      if (!pending) return;
      const settings = loadSettings(io.env);
      const baseUrl = (values['base-url'] as string | undefined) ?? io.env['FRAMEDESK_BASE_URL'] ?? DEFAULT_BASE_URL;
      const { frames, notes: rendered } = await renderSamples({ video: { ffmpegPath: settings.FFMPEG_PATH } });
      const notes = [...rendered];
      const decider = await serviceReviewer(db(), settings, DEMO.reviewer);
      try {
        const result = await seedSamples({
          client: createClient({ baseUrl, apiKey: pending.api_key }),
          agent: DEMO.agent,
          frames,
          today: pending.today,
          reviewer: decider.reviewer,
        });
        const counts = Object.entries(result.statuses).map(([status, count]) => `${count} ${status.replace('_', ' ')}`);
        const unsent = result.unsent.map((u) => `${u.name} (${u.reason})`);
        // Kept while a sample is missing, so that the next start sends it.
        if (unsent.length === 0) await removePendingSamples(file);
        else notes.push(`not sent, the next start tries again: ${unsent.join('; ')}`);
        io.out(
          `sample frames: ${result.ids.size} in ${SAMPLE_CHANNELS.map((c) => c.slug).join(' and ')} (${counts.join(', ')})` +
            (notes.length ? `; ${notes.join('; ')}` : ''),
        );
        return unsent.length === 0 ? 0 : 1;
      } catch (error) {
        if (!isFramedeskError(error)) throw error;
        // The key no longer works (the demo was reset): these samples can never be sent.
        if (error.code === 'unauthenticated') await removePendingSamples(file);
        io.err(`framedesk: sample frames not added: ${error.message}`);
        return 1;
      } finally {
        await decider.close();
      }
    },
  },
};
