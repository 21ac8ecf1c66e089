// For this library's integration specs: a migrated database of the describe's own, with an agent
// and a channel to file submissions under.
import { createDatabase, type Database } from '@framedesk/db';
import { createTestDatabase, type TestDatabase } from '@framedesk/testing';
import { afterAll, beforeAll } from 'vitest';

export interface SubmissionsTestDatabase {
  readonly database: TestDatabase;
  readonly db: Database;
  readonly agentId: string;
  readonly channelId: string;
}

/**
 * Set up before the enclosing describe's tests (agent `<name>-agent`, channel `<name>-channel`)
 * and dropped after them; read its fields inside the tests.
 */
export function useSubmissionsDatabase(name: string): SubmissionsTestDatabase {
  const context = {} as { -readonly [K in keyof SubmissionsTestDatabase]: SubmissionsTestDatabase[K] };
  beforeAll(async () => {
    context.database = await createTestDatabase();
    context.db = createDatabase({ url: context.database.url, poolSize: 2 });
    context.agentId = (await context.db.repos.agents.create(`${name}-agent`)).id;
    context.channelId = (await context.db.repos.channels.ensure(`${name}-channel`)).channel.id;
  });
  afterAll(async () => {
    await context.db?.close();
    await context.database?.drop();
  });
  return context;
}
