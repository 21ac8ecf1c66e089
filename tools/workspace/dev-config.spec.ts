// `npm start` with API_PORT: upload addresses must point at the port the API listens on.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs tool without types
import { developmentConfigFor } from '../dev-config.mjs';

const repo = resolve(import.meta.dirname, '../..');
function tree(): string {
  const root = mkdtempSync(join(tmpdir(), 'fd-devcfg-'));
  mkdirSync(join(root, 'config'));
  copyFileSync(join(repo, 'config/project.example.json'), join(root, 'config/project.example.json'));
  return root;
}

describe('developmentConfigFor', () => {
  it('writes the example with base_url on API_PORT when the API runs elsewhere than the example says', () => {
    const root = tree();
    const file = developmentConfigFor(root, { API_PORT: '3310' }) as string;
    const config = JSON.parse(readFileSync(file, 'utf8'));
    expect(config.api.base_url).toBe('http://127.0.0.1:3310');
    const example = JSON.parse(readFileSync(join(root, 'config/project.example.json'), 'utf8'));
    expect({ ...config, api: { ...config.api, base_url: example.api.base_url } }).toEqual(example);
  });

  it("leaves the user's own choice alone, and the example when the port is its own", () => {
    const root = tree();
    expect(developmentConfigFor(root, {})).toBeUndefined();
    expect(developmentConfigFor(root, { API_PORT: '3000' })).toBeUndefined();
    expect(developmentConfigFor(root, { API_PORT: '3310', FRAMEDESK_CONFIG: 'mine.json' })).toBeUndefined();
    writeFileSync(join(root, 'config/project.json'), '{}');
    expect(developmentConfigFor(root, { API_PORT: '3310' })).toBeUndefined();
  });
});
