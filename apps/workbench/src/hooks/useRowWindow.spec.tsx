import { act, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { useRowWindow } from './useRowWindow';

/** A scroller the way happy-dom has it: no layout, so clientHeight is 0 and the hook assumes 800 px. */
function scroller(): HTMLDivElement {
  const el = document.createElement('div');
  document.body.append(el);
  return el;
}

describe('useRowWindow', () => {
  it('keeps only the rows in view plus the overscan, and follows the scroll', () => {
    const el = scroller();
    const { result } = renderHook(() => useRowWindow({ scroller: el, count: 10_000, rowHeight: 80, overscan: 5 }));
    expect(result.current.totalHeight).toBe(800_000);
    // 800 px hold 10 rows, and a part of an 11th once scrolled; 5 more below.
    expect(result.current.rows.map((r) => r.index)).toEqual([...Array(16).keys()]);
    expect(result.current.rows[3]).toEqual({ index: 3, start: 240 });
    act(() => {
      el.scrollTop = 80 * 5_000;
      el.dispatchEvent(new Event('scroll'));
    });
    const indexes = result.current.rows.map((r) => r.index);
    expect([indexes[0], indexes.at(-1)]).toEqual([4_995, 5_015]);
  });

  it('stops at the last row, and scrolls a row into view only when it is out of it', () => {
    const el = scroller();
    const { result } = renderHook(() => useRowWindow({ scroller: el, count: 3, rowHeight: 80, overscan: 5 }));
    expect(result.current.rows.map((r) => r.index)).toEqual([0, 1, 2]);
    act(() => result.current.scrollToRow(2));
    // clientHeight 0: the row's bottom must be at the top edge.
    expect(el.scrollTop).toBe(240);
    act(() => result.current.scrollToRow(0));
    expect(el.scrollTop).toBe(0);
  });
});
