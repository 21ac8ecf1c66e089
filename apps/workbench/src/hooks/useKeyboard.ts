import { useEffect, useRef } from 'react';

const NOT_TYPING = new Set(['checkbox', 'radio', 'button', 'submit', 'reset']);

/** Whether keys pressed on `target` are text being typed (a checkbox or a button is not). */
function typing(target: HTMLElement): boolean {
  if (target.isContentEditable || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT') return true;
  return target.tagName === 'INPUT' && !NOT_TYPING.has((target as HTMLInputElement).type);
}

/** Single-key shortcuts, ignored while typing in a field or working in a dialog. */
export function useKeyboard(bindings: Record<string, () => void>): void {
  const latest = useRef(bindings);
  useEffect(() => {
    latest.current = bindings;
  });
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target as HTMLElement | null;
      if (target && typing(target)) return;
      // A dialog or popover (reject reasons, key map, palette) has the keys while it is open.
      if (target instanceof Element && target.closest('[role="dialog"], [role="alertdialog"]')) return;
      const action = latest.current[event.key];
      if (!action) return;
      event.preventDefault();
      action();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
