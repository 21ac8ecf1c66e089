// `npm start` on other ports: the committed example configuration says the API is at
// 127.0.0.1:3000, and `api.base_url` is where agents are sent to upload video. With API_PORT set
// and no configuration of the user's own, start writes a copy of the example whose base_url is
// the port the API really listens on, so upload addresses point at it.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The FRAMEDESK_CONFIG `npm start` should set, or undefined to leave the choice as it is (the
 * user named a file, has config/project.json, or runs the API on the example's own port).
 */
export function developmentConfigFor(root, env) {
  if (env.FRAMEDESK_CONFIG || existsSync(join(root, 'config/project.json'))) return undefined;
  const example = JSON.parse(readFileSync(join(root, 'config/project.example.json'), 'utf8'));
  const baseUrl = new URL(example.api.base_url);
  const port = env.API_PORT || '3000';
  if (baseUrl.port === port) return undefined;
  baseUrl.port = port;
  example.api.base_url = baseUrl.origin;
  const file = join(root, '.data', `project.port-${port}.json`);
  mkdirSync(join(root, '.data'), { recursive: true });
  writeFileSync(file, `${JSON.stringify(example, null, 2)}\n`);
  return file;
}
