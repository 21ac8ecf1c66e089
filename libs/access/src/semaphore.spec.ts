import { describe, expect, it } from 'vitest';
import { addressKey } from './login-throttle';
import { createSemaphore } from './semaphore';

describe('semaphore', () => {
  it('lets `max` holders in, queues `maxWaiting`, refuses the rest at once', async () => {
    const s = createSemaphore(2, 1);
    const a = await s.tryAcquire();
    const b = await s.tryAcquire();
    let cGot = false;
    const c = s.tryAcquire().then((r) => ((cGot = true), r));
    expect(await s.tryAcquire()).toBeNull();
    expect(cGot).toBe(false);
    a!();
    a!(); // releasing twice frees one slot only
    const release = await c;
    expect(cGot).toBe(true);
    expect(s.busy).toBe(2);
    b!();
    release!();
    expect(s.busy).toBe(0);
  });
});

describe('addressKey', () => {
  it('keys IPv4 by address and IPv6 by its /64', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:ffff:1:2:3')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
  });
});
