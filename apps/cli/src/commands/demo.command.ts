import { createReviewer, generateApiKey, generatePassword } from '@framedesk/access';
import type { Command } from '../command';

export const DEMO = { channel: 'demo', agent: 'demo-agent', reviewer: 'reviewer@framedesk.local' } as const;

export const demoCommands: Record<string, Command> = {
  // Used by `npm start`: on the first run only, a channel, an agent with a key, and a reviewer.
  'demo seed': {
    usage: 'demo seed',
    positionals: 0,
    async run({ db, io }) {
      const database = db();
      if (await database.repos.agents.findBySlug(DEMO.agent)) return;
      const key = generateApiKey();
      await database.transaction(async (repos) => {
        const { channel } = await repos.channels.ensure(DEMO.channel, 'Demo channel');
        const agent = await repos.agents.create(DEMO.agent, 'Demo agent');
        await repos.agents.allowChannels(agent.id, [channel.id]);
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
      io.out(
        [
          '',
          '  First run: demo data created. These are shown once; keep them.',
          `  Agent API key (agent ${DEMO.agent}, channel ${DEMO.channel}): ${key.key}`,
          `  Workbench login: ${DEMO.reviewer} / ${password}`,
          '',
        ].join('\n'),
      );
    },
  },
};
