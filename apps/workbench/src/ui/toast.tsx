import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { Button } from './Button';

// Our own small toast stack (it replaced sonner, 9 kB gzipped, of which the workbench used one
// custom card at a time): a list in a labelled region, each card timed, the timers paused while
// the pointer or the focus is in the region so there is time to reach Undo.

export interface ToastOptions {
  readonly id?: string;
  readonly durationMs?: number;
  /** An action beside the message, e.g. Undo (its key in `keys`). */
  readonly action?: { readonly label: string; readonly onAction: () => void; readonly keys?: string };
  readonly tone?: 'info' | 'error';
}

interface ShownToast {
  readonly id: string;
  /** A new key for each call: a replaced toast starts its time again. */
  readonly key: number;
  readonly message: string;
  readonly options: ToastOptions;
}

const DEFAULT_DURATION_MS = 4_000;
let shown: readonly ShownToast[] = [];
let calls = 0;
const listeners = new Set<() => void>();
const publish = (next: readonly ShownToast[]) => {
  shown = next;
  listeners.forEach((listener) => listener());
};
const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => void listeners.delete(listener);
};

/** Shows a toast (replacing the one with the same id); it reads as a status (an alert for errors). */
export function toast(message: string, options: ToastOptions = {}): string {
  calls += 1;
  const id = options.id ?? `toast-${calls}`;
  publish([...shown.filter((t) => t.id !== id), { id, key: calls, message, options }]);
  return id;
}

/** Removes the toast with this id, or every toast. */
export function dismissToast(id?: string): void {
  publish(id === undefined ? [] : shown.filter((t) => t.id !== id));
}

function ToastCard({ toast: { id, message, options }, paused }: { toast: ShownToast; paused: boolean }) {
  const { action, tone = 'info' } = options;
  const remaining = useRef(options.durationMs ?? DEFAULT_DURATION_MS);
  useEffect(() => {
    if (paused) return;
    const started = Date.now();
    const timer = setTimeout(() => dismissToast(id), remaining.current);
    return () => {
      clearTimeout(timer);
      remaining.current -= Date.now() - started;
    };
  }, [id, paused]);
  return (
    <div className={`ui-toast ui-toast--${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
      <span className="ui-toast-message">{message}</span>
      {action && (
        <Button
          size="sm"
          variant="ghost"
          className="ui-toast-action"
          onPress={() => {
            dismissToast(id);
            action.onAction();
          }}
        >
          {action.label}
        </Button>
      )}
      {action?.keys && <kbd className="ui-kbd">{action.keys}</kbd>}
    </div>
  );
}

/** Where toasts appear (once, in the shell), newest last, at the bottom centre. */
export function Toaster() {
  const toasts = useSyncExternalStore(subscribe, () => shown);
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  return (
    <section
      className="ui-toaster"
      aria-label="Notifications"
      onPointerEnter={() => setHovered(true)}
      onPointerLeave={() => setHovered(false)}
      onFocus={() => setFocused(true)}
      onBlur={(e) => setFocused(e.currentTarget.contains(e.relatedTarget as Node | null))}
    >
      <ol className="ui-toast-list">
        {toasts.map((t) => (
          <li key={t.key}>
            <ToastCard toast={t} paused={hovered || focused} />
          </li>
        ))}
      </ol>
    </section>
  );
}
