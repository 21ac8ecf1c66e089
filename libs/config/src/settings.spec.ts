import { describe, expect, it } from 'vitest';
import { loadSettings, SettingsError } from './settings';

describe('settings', () => {
  it('has safe local defaults', () => {
    const s = loadSettings({});
    expect(s.API_PORT).toBe(3000);
    expect(s.STORAGE_DRIVER).toBe('fs');
    expect(s.VIDEO_PROVIDER).toBe('local');
    expect(s.REDIS_URL).toBe('redis://127.0.0.1:6379');
  });

  it('hash-tags REDIS_PREFIX so every key of an installation shares one Redis Cluster slot', () => {
    expect(loadSettings({}).REDIS_PREFIX).toBe('{framedesk}');
    expect(loadSettings({ REDIS_PREFIX: 'site-a' }).REDIS_PREFIX).toBe('{site-a}');
    expect(loadSettings({ REDIS_PREFIX: '{site-b}' }).REDIS_PREFIX).toBe('{site-b}');
    expect(() => loadSettings({ REDIS_PREFIX: 'a:b' })).toThrow(SettingsError);
  });

  it('coerces numbers and booleans and reports every bad variable', () => {
    expect(loadSettings({ API_PORT: '8080', TRUST_PROXY: 'true' })).toMatchObject({
      API_PORT: 8080,
      TRUST_PROXY: true,
    });
    try {
      loadSettings({ API_PORT: 'eighty', STORAGE_DRIVER: 'ftp', WORKER_CONCURRENCY: '0' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SettingsError);
      expect((error as SettingsError).violations.map((v) => v.path).sort()).toEqual([
        '/API_PORT',
        '/STORAGE_DRIVER',
        '/WORKER_CONCURRENCY',
      ]);
    }
  });

  it('refuses the development secret in production and incomplete drivers', () => {
    expect(() => loadSettings({ NODE_ENV: 'production' })).toThrow(/SESSION_SECRET/);
    expect(() => loadSettings({ STORAGE_DRIVER: 's3' })).toThrow(/S3_ENDPOINT/);
    expect(() => loadSettings({ VIDEO_PROVIDER: 'cloudflare' })).toThrow(/CLOUDFLARE_API_TOKEN/);
  });
});
