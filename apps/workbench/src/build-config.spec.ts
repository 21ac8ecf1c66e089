import { describe, expect, it } from 'vitest';
import config from '../vite.config';

describe('production build', () => {
  it('ships no source maps (they would publish the workbench source)', () => {
    const build = (config as { build?: { sourcemap?: unknown } }).build;
    expect(build?.sourcemap ?? false).toBe(false);
  });
});
