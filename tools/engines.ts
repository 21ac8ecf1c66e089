// `npm run engines -- start|stop|status|env <patroni|patroni-drill|patroni-async|sentinel|rgw>`:
// the engines organisations run past one machine, on this one, under a temp folder
// (libs/testing/src/engines; the Patroni instances are one engine on three port ranges). `env`
// prints the settings a Framedesk process needs to use the engine, as shell assignments.
import { type EngineName, engines, startEngine, stopEngine } from '../libs/testing/src/engines/index.ts';
import { engineDir } from '../libs/testing/src/engines/engine.ts';

const [command, name] = process.argv.slice(2);
const names = Object.keys(engines) as EngineName[];
if (!command || !name || !names.includes(name as EngineName)) {
  console.error(`usage: npm run engines -- start|stop|status|env <${names.join('|')}>`);
  process.exit(2);
}
const engineName = name as EngineName;
const engine = engines[engineName];
const dir = engineDir(engineName);
const print = (env: Record<string, string>) =>
  console.log(
    Object.entries(env)
      .map(([key, value]) => `${key}='${value}'`)
      .join('\n'),
  );

switch (command) {
  case 'start': {
    const running = await startEngine(engineName);
    console.log(`[engines] ${engineName} serves (${dir}); ports ${JSON.stringify(engine.ports)}`);
    print(running.env);
    break;
  }
  case 'stop':
    await stopEngine(engineName);
    console.log(`[engines] ${engineName} stopped`);
    break;
  case 'status': {
    const up = await engine.ready(dir);
    console.log(`[engines] ${engineName}: ${up ? 'serving' : 'not running'} (${dir})`);
    process.exitCode = up ? 0 : 1;
    break;
  }
  case 'env':
    print(engine.env(dir));
    break;
  default:
    console.error(`unknown command ${command}`);
    process.exit(2);
}
