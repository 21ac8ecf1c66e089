import { useCallback, useRef, useState } from 'react';

/**
 * Frames ticked for a bulk action. A shift-tick adds the range from the last ticked frame;
 * ids that left the list drop out of `checked` on the next render's `visible` filter.
 */
export function useBulkSelection(order: readonly string[]) {
  const [checked, setChecked] = useState<ReadonlySet<string>>(new Set());
  const anchor = useRef<string | null>(null);
  const orderRef = useRef(order);
  orderRef.current = order;

  const toggle = useCallback((id: string, range = false) => {
    const ids = orderRef.current;
    const [from, to] = [ids.indexOf(anchor.current ?? ''), ids.indexOf(id)];
    setChecked((prev) => {
      const next = new Set(prev);
      if (range && from >= 0 && to >= 0) {
        for (const i of ids.slice(Math.min(from, to), Math.max(from, to) + 1)) next.add(i);
      } else if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
    anchor.current = id;
  }, []);

  const clear = useCallback(() => {
    setChecked(new Set());
    anchor.current = null;
  }, []);

  const visible = order.filter((id) => checked.has(id));
  return { checked: new Set(visible) as ReadonlySet<string>, count: visible.length, visible, toggle, clear };
}
