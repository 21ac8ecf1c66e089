import { useCallback, useLayoutEffect, useState } from 'react';

export interface WindowRow {
  readonly index: number;
  /** Offset of the row's top from the top of the list, in px. */
  readonly start: number;
}

/** What is assumed of a scroller the browser has not laid out (hidden, or a DOM without CSS). */
const UNLAID_HEIGHT = 800;

/**
 * Rows of one fixed height in a scrolling element: the ones in view plus `overscan` on each side,
 * the list's whole height, and a way to scroll one row into view. (It replaced
 * @tanstack/react-virtual, 8 kB gzipped, whose measuring of rows of varying height the queue
 * never needed.)
 */
export function useRowWindow({
  scroller,
  count,
  rowHeight,
  overscan,
}: {
  readonly scroller: HTMLElement | null;
  readonly count: number;
  readonly rowHeight: number;
  readonly overscan: number;
}) {
  // The first row in view and the scroller's height: a scroll within one row renders nothing.
  const [view, setView] = useState({ row: 0, height: 0 });
  useLayoutEffect(() => {
    if (!scroller) return;
    const update = () =>
      setView((was) => {
        const row = Math.floor(scroller.scrollTop / rowHeight);
        const height = scroller.clientHeight;
        return was.row === row && was.height === height ? was : { row, height };
      });
    update();
    scroller.addEventListener('scroll', update, { passive: true });
    const resize = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(update);
    resize?.observe(scroller);
    return () => {
      scroller.removeEventListener('scroll', update);
      resize?.disconnect();
    };
  }, [scroller, rowHeight]);

  const inView = Math.ceil((view.height || UNLAID_HEIGHT) / rowHeight);
  const first = Math.max(0, view.row - overscan);
  const last = Math.min(count - 1, view.row + inView + overscan);
  const rows: WindowRow[] = [];
  for (let index = first; index <= last; index++) rows.push({ index, start: index * rowHeight });

  /** Scrolls as little as needed for the row to be wholly in view. */
  const scrollToRow = useCallback(
    (index: number) => {
      if (!scroller) return;
      const top = index * rowHeight;
      if (top < scroller.scrollTop) scroller.scrollTop = top;
      else if (top + rowHeight > scroller.scrollTop + scroller.clientHeight)
        scroller.scrollTop = top + rowHeight - scroller.clientHeight;
    },
    [scroller, rowHeight],
  );
  return { rows, totalHeight: count * rowHeight, scrollToRow };
}
