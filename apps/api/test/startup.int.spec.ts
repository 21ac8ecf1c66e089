// The API refuses to start in words that name the setting to change, never with a stack trace,
// when it cannot listen on its port (a second `npm start`, another program on 3000).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTestDatabase,
  createTestRedisPrefix,
  occupyPort,
  startApp,
  type TestDatabase,
  testRedisUrl,
  writeTestConfig,
} from '@framedesk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

describe('API start-up', () => {
  let database: TestDatabase;
  let dir: string;
  let occupied: { port: number; release(): Promise<void> };

  beforeAll(async () => {
    database = await createTestDatabase();
    dir = await mkdtemp(join(tmpdir(), 'fd-startup-'));
    occupied = await occupyPort();
  });
  afterAll(async () => {
    await occupied?.release();
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('exits 1 naming API_PORT when another process holds the port', async () => {
    const { port } = occupied;
    const api = startApp('api', {
      NODE_ENV: 'test',
      DATABASE_URL: database.url,
      REDIS_URL: testRedisUrl(),
      REDIS_PREFIX: createTestRedisPrefix().prefix,
      STORAGE_FS_ROOT: join(dir, 'storage'),
      FRAMEDESK_CONFIG: await writeTestConfig(dir, `http://127.0.0.1:${port}`),
      API_HOST: '127.0.0.1',
      API_PORT: String(port),
      LOG_LEVEL: 'silent',
    });
    const code = await new Promise<number | null>((resolve) => api.child.once('exit', resolve));
    expect(code).toBe(1);
    expect(api.output()).toContain(
      `api: refusing to start.\nAPI_PORT=${port}: 127.0.0.1:${port} is already in use (another Framedesk process, or another program). Stop it, or set API_PORT to a free port.`,
    );
    expect(api.output()).not.toMatch(/Unhandled 'error' event|\n\s+at /);
  });
});
