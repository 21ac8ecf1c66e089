import { describe, expect, it } from 'vitest';
import { describeRedisTarget, parseSentinels, redisTarget } from './redis-target';
import { loadSettings, SettingsError } from './settings';

describe('redisTarget: one Redis or Sentinel', () => {
  const base = { REDIS_URL: 'redis://10.0.0.5:6380', REDIS_SENTINELS: '', REDIS_SENTINEL_NAME: 'framedesk' };

  it('is REDIS_URL without REDIS_SENTINELS', () => {
    expect(redisTarget(base)).toEqual({ kind: 'url', url: 'redis://10.0.0.5:6380' });
    expect(describeRedisTarget(redisTarget(base))).toBe('10.0.0.5:6380');
  });

  it('is the Sentinels, the name and the passwords with REDIS_SENTINELS (REDIS_URL ignored)', () => {
    const target = redisTarget({
      ...base,
      REDIS_SENTINELS: ' 10.0.0.1:26379, sentinel-b:26380,[::1]:26381 ',
      REDIS_SENTINEL_PASSWORD: 's',
      REDIS_PASSWORD: 'r',
    });
    expect(target).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: 'sentinel-b', port: 26380 },
        { host: '::1', port: 26381 },
      ],
      name: 'framedesk',
      sentinelPassword: 's',
      password: 'r',
    });
    expect(describeRedisTarget(target)).toBe('Sentinel framedesk via 10.0.0.1:26379,sentinel-b:26380,::1:26381');
  });

  it('refuses a list that is not host:port pairs at start-up', () => {
    expect(parseSentinels('10.0.0.1')).toBeNull();
    expect(parseSentinels('a:1,b:99999')).toBeNull();
    expect(() => loadSettings({ REDIS_SENTINELS: 'a:1,nope' })).toThrow(SettingsError);
    expect(loadSettings({ REDIS_SENTINELS: 'a:1,b:2' }).REDIS_SENTINEL_NAME).toBe('framedesk');
  });
});
