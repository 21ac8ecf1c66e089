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
    expect(loadSettings({ API_PORT: '8080', S3_FORCE_PATH_STYLE: 'false' })).toMatchObject({
      API_PORT: 8080,
      S3_FORCE_PATH_STYLE: false,
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

  it('takes TRUST_PROXY as a hop count or addresses/CIDRs and refuses true', () => {
    expect(loadSettings({}).TRUST_PROXY).toBe(false);
    expect(loadSettings({ TRUST_PROXY: '1' }).TRUST_PROXY).toBe(1);
    expect(loadSettings({ TRUST_PROXY: '10.0.0.0/8, 2001:db8::1, loopback' }).TRUST_PROXY).toEqual([
      '10.0.0.0/8',
      '2001:db8::1',
      'loopback',
    ]);
    expect(() => loadSettings({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY: true is refused.*X-Forwarded-For/);
    expect(() => loadSettings({ TRUST_PROXY: '10.0.0.0/99' })).toThrow(/TRUST_PROXY/);
  });

  it('refuses a placeholder or short SESSION_SECRET in production', () => {
    const strong = 'q7Vb2kLm9XpR4tWz8NcY1sHd6FgJ3uAe';
    for (const secret of [undefined, 'change-me-to-a-long-random-secret', 'a'.repeat(40), 'short-but-random-Xk2']) {
      expect(() => loadSettings({ NODE_ENV: 'production', ...(secret ? { SESSION_SECRET: secret } : {}) })).toThrow(
        /SESSION_SECRET/,
      );
    }
    expect(loadSettings({ NODE_ENV: 'production', SESSION_SECRET: strong }).SESSION_SECRET).toBe(strong);
    expect(loadSettings({ SESSION_SECRET: 'short-but-random-Xk2' }).NODE_ENV).toBe('development');
  });

  it('refuses the development secret in production and incomplete drivers', () => {
    // Unset, it says so (it once called the secret nobody had written "a placeholder").
    expect(() => loadSettings({ NODE_ENV: 'production' })).toThrow(
      /SESSION_SECRET: is not set \(the development default/,
    );
    expect(() => loadSettings({ NODE_ENV: 'production', SESSION_SECRET: 'change-me-to-a-long-random-secret' })).toThrow(
      /SESSION_SECRET: is a placeholder/,
    );
    expect(() => loadSettings({ STORAGE_DRIVER: 's3' })).toThrow(/S3_ENDPOINT/);
    expect(() => loadSettings({ VIDEO_PROVIDER: 'cloudflare' })).toThrow(/CLOUDFLARE_API_TOKEN/);
  });

  it('parses OIDC_GROUP_MAPPING into grants and refuses what it cannot read', () => {
    expect(
      loadSettings({ OIDC_GROUP_MAPPING: 'fd-admins=role:admin, sports desk=channel:sports,sports desk=channel:news' })
        .OIDC_GROUP_MAPPING,
    ).toEqual([
      { group: 'fd-admins', grant: { role: 'admin' } },
      { group: 'sports desk', grant: { channel: 'sports' } },
      { group: 'sports desk', grant: { channel: 'news' } },
    ]);
    expect(loadSettings({}).OIDC_GROUP_MAPPING).toEqual([]);
    for (const bad of ['fd-admins', 'fd-admins=admin', 'x=channel:Not A Slug', '=role:admin'])
      expect(() => loadSettings({ OIDC_GROUP_MAPPING: bad }), bad).toThrow(/OIDC_GROUP_MAPPING/);
  });

  it('needs a client id with an issuer, https unless on loopback, and an issuer before passwords can be turned off', () => {
    const violations = (env: Record<string, string>) => {
      try {
        loadSettings(env);
        return [];
      } catch (error) {
        return (error as SettingsError).violations.map((v) => v.path);
      }
    };
    expect(violations({ OIDC_ISSUER_URL: 'https://idp.example.com', OIDC_CLIENT_ID: 'fd' })).toEqual([]);
    expect(violations({ OIDC_ISSUER_URL: 'http://127.0.0.1:9000', OIDC_CLIENT_ID: 'fd' })).toEqual([]);
    expect(violations({ OIDC_ISSUER_URL: 'http://idp.example.com', OIDC_CLIENT_ID: 'fd' })).toEqual([
      '/OIDC_ISSUER_URL',
    ]);
    expect(violations({ OIDC_ISSUER_URL: 'https://idp.example.com' })).toEqual(['/OIDC_CLIENT_ID']);
    expect(violations({ PASSWORD_LOGIN: 'false' })).toEqual(['/PASSWORD_LOGIN']);
    expect(loadSettings({}).PASSWORD_LOGIN).toBe(true);
  });
});
