import type { QueueItem } from '../api/types';
import type { Route } from './useRoute';

interface QueueNavigation {
  readonly items: readonly QueueItem[];
  readonly selectedId: string | null;
  readonly setQuery: Route['setQuery'];
  readonly setRejecting: (on: boolean) => void;
  readonly setDetailOpen: (on: boolean) => void;
}

/** Moving through the queue: the frame before or after the selected one, selecting, stepping, opening. */
export function useQueueNavigation({ items, selectedId, setQuery, setRejecting, setDetailOpen }: QueueNavigation) {
  const neighbour = (offset: number, skip: ReadonlySet<string> = new Set()): string | null => {
    const index = items.findIndex((i) => i.id === selectedId);
    for (let i = index + offset; i >= 0 && i < items.length; i += offset) {
      if (!skip.has(items[i]!.id)) return items[i]!.id;
    }
    return null;
  };
  const select = (id: string | null) => {
    setRejecting(false);
    setQuery({ selected: id });
  };
  /** j/k: the next frame becomes the selected one and gets the focus (Enter opens it in the grid). */
  const step = (offset: number) => {
    const id = neighbour(offset);
    if (!id) return;
    select(id);
    requestAnimationFrame(() =>
      document.querySelector<HTMLButtonElement>(`button.queue-item[data-id="${CSS.escape(id)}"]`)?.focus(),
    );
  };
  const open = (id: string) => {
    setDetailOpen(true);
    setRejecting(false);
    setQuery({ selected: id, view: null });
  };

  return { neighbour, select, step, open };
}
