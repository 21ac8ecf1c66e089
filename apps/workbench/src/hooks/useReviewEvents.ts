import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useSyncExternalStore } from 'react';

/** Whether the live event stream is open; while it is not, screens poll. */
let live = false;
const listeners = new Set<() => void>();
const setLive = (value: boolean) => {
  if (live === value) return;
  live = value;
  listeners.forEach((l) => l());
};

export function useLive(): boolean {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => live,
  );
}

/** Polling interval: none while live events arrive, `ms` otherwise (the fallback). */
export function usePollInterval(ms: number): number | false {
  return useLive() ? false : ms;
}

interface Change {
  readonly kind: string;
  readonly id: string;
}

/**
 * Listens to `GET /review/events` (Server-Sent Events; the browser reconnects by itself and
 * sends Last-Event-ID) and refreshes what a change touches: the queue, the counts, that frame;
 * a change of the reviewer's own access (`event: access`) or a Redis switch (`event: resync`)
 * refreshes everything.
 */
export function useReviewEvents(): void {
  const client = useQueryClient();
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const source = new EventSource('/review/events');
    source.onopen = () => setLive(true);
    source.onerror = () => setLive(false);
    source.addEventListener('change', (message: MessageEvent<string>) => {
      let change: Change;
      try {
        change = JSON.parse(message.data) as Change;
      } catch {
        return;
      }
      void client.invalidateQueries({ queryKey: ['queue'] });
      void client.invalidateQueries({ queryKey: ['channels'] });
      void client.invalidateQueries({ queryKey: ['submission', change.id] });
      if (change.kind === 'status') {
        void client.invalidateQueries({ queryKey: ['timeline'] });
        void client.invalidateQueries({ queryKey: ['ops'] });
      }
    });
    // The reviewer's own role or channels changed: everything on screen is read again.
    source.addEventListener('access', () => void client.invalidateQueries());
    // Redis switched primaries (a failover) under the stream: changes may have been missed.
    source.addEventListener('resync', () => void client.invalidateQueries());
    // Too many streams open for this session (other tabs): the server closed this one; this tab
    // polls rather than reconnect and close another tab's.
    source.addEventListener('closed', () => {
      source.close();
      setLive(false);
    });
    return () => {
      source.close();
      setLive(false);
    };
  }, [client]);
}
