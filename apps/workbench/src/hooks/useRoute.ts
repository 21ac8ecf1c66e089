import { useCallback, useSyncExternalStore } from 'react';

/** A tiny history router: the path picks the screen, the query string holds filters and selection. */
const listeners = new Set<() => void>();
const notify = () => listeners.forEach((l) => l());

function subscribe(listener: () => void) {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

const snapshot = () => window.location.pathname + window.location.search;

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === snapshot()) return;
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  notify();
}

export interface Route {
  readonly path: string;
  readonly query: URLSearchParams;
  navigate: typeof navigate;
  /** Changes some query parameters (empty values are removed), keeping the others. */
  setQuery(patch: Record<string, string | null | undefined>, options?: { replace?: boolean }): void;
}

export function useRoute(): Route {
  const location = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(location, 'http://workbench.local');
  const setQuery = useCallback(
    (patch: Record<string, string | null | undefined>, options: { replace?: boolean } = {}) => {
      const next = new URLSearchParams(window.location.search);
      for (const [key, value] of Object.entries(patch)) {
        if (value) next.set(key, value);
        else next.delete(key);
      }
      const qs = next.toString();
      navigate(window.location.pathname + (qs ? `?${qs}` : ''), options);
    },
    [],
  );
  return { path: url.pathname, query: url.searchParams, navigate, setQuery };
}
