import { resolve } from 'node:path';
import { ConfigError, readProjectConfig } from '@framedesk/config';
import type { Command } from '../command';

export const configCommands: Record<string, Command> = {
  'config check': {
    usage: 'config check <file>',
    positionals: 1,
    async run({ positionals, io }) {
      const file = resolve(positionals[0]!);
      try {
        readProjectConfig(file);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        io.err(`${file}: ${error.violations.length} violation${error.violations.length === 1 ? '' : 's'}`);
        for (const v of error.violations) io.err(`  ${v.path}: ${v.message}`);
        return 1;
      }
      io.out(`${file}: valid`);
    },
  },
};
