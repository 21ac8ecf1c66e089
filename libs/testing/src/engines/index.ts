import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { type Engine, engineDir, ensurePackages, stopProcesses, withLock } from './engine';
import { patroni, patroniAsync, patroniDrill } from './patroni';
import { rgw } from './rgw';
import { sentinel } from './sentinel';

export * from './engine';
export {
  killSentinelRedis,
  sentinelProcessNames,
  restartSentinelRedis,
  SENTINEL_MASTER,
  SENTINEL_PORTS,
  SENTINEL_REDIS_PORTS,
  sentinelPrimaryPort,
} from './sentinel';
export * from './patroni';

/** Every engine the project can start: `npm run engines -- start <name>`, `useEngine(name)` in tests. */
export const engines = {
  patroni,
  'patroni-drill': patroniDrill,
  'patroni-async': patroniAsync,
  sentinel,
  rgw,
} as const satisfies Record<string, Engine>;
export type EngineName = keyof typeof engines;

export interface RunningEngine {
  readonly engine: Engine;
  readonly dir: string;
  readonly env: Record<string, string>;
}

/**
 * Starts `name` under its folder (installing its packages first when missing), or reuses it when it
 * already serves there. `fresh` wipes the folder first: a drill that kills processes wants its own.
 */
export async function startEngine(
  name: EngineName,
  { fresh = false, dir = engineDir(name) } = {},
): Promise<RunningEngine> {
  const engine: Engine = engines[name];
  await withLock('apt', async () => ensurePackages(engine));
  // One start per folder, whichever test file or command asks first; the others reuse it.
  return withLock(`start-${name}-${dir.replace(/[^a-z0-9]+/gi, '_')}`, async () => {
    if (!fresh && (await engine.ready(dir))) return { engine, dir, env: engine.env(dir) };
    await stopEngine(name, { dir });
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    await engine.start(dir);
    return { engine, dir, env: engine.env(dir) };
  });
}

/** Stops every process the engine recorded under its folder (`<process>.pid`). */
export async function stopEngine(name: EngineName, { dir = engineDir(name), remove = false } = {}): Promise<void> {
  if (!existsSync(dir)) return;
  const names = readdirSync(dir)
    .filter((file) => file.endsWith('.pid'))
    .map((file) => file.slice(0, -'.pid'.length));
  await stopProcesses(dir, names);
  if (remove) rmSync(dir, { recursive: true, force: true });
}
