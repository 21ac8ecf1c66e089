import { createReviewer } from '@framedesk/access';
import { type Command, UsageError } from '../command';

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

export const reviewerCommands: Record<string, Command> = {
  'reviewer create': {
    usage: 'reviewer create <email> --password-stdin [--name NAME]',
    positionals: 1,
    options: { 'password-stdin': { type: 'boolean' }, name: { type: 'string' } },
    async run({ positionals, values, db, io }) {
      // Never from argv: it would land in shell history and the process list.
      if (!values['password-stdin']) throw new UsageError('pass the password on standard input with --password-stdin');
      const password = (await readAll(io.stdin)).replace(/\r?\n$/, '');
      const reviewer = await createReviewer(db(), {
        email: positionals[0]!,
        password,
        name: values['name'] as string | undefined,
      });
      io.out(`created reviewer ${reviewer.email}`);
    },
  },
};
