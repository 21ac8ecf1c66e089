import { cleanup, render, screen } from '@testing-library/react';
import axe from 'axe-core';
import { afterEach, describe, expect, it } from 'vitest';
import { Skeleton } from './display';

describe('Skeleton', () => {
  afterEach(cleanup);

  it('is announced as loading, with ARIA that axe permits (the dark queue showed it while the detail loaded)', async () => {
    const { container } = render(<Skeleton lines={2} />);
    expect(screen.getByRole('progressbar', { name: 'Loading' }).getAttribute('aria-busy')).toBe('true');
    const result = await axe.run(container, {
      runOnly: ['aria-prohibited-attr', 'aria-allowed-attr', 'aria-progressbar-name'],
    });
    expect(result.violations.map((v) => v.id)).toEqual([]);
  });
});
