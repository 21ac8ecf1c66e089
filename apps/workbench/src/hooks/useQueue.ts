import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { usePollInterval } from './useReviewEvents';

export const QUEUE_FILTERS = ['channel', 'agent', 'media_type', 'date_from', 'date_to'] as const;
export const POLL_MS = 5_000;

/** The API query string of the filters in the page's URL. */
export function queueQueryOf(query: URLSearchParams): string {
  const out = new URLSearchParams();
  for (const key of QUEUE_FILTERS) {
    const value = query.get(key);
    if (value) out.set(key, value);
  }
  out.set('limit', '100');
  return out.toString();
}

/**
 * The queue, a page (100 frames) at a time as the list scrolls, refreshed by live events (polled
 * without them); the previous pages stay while the next loads.
 */
export function useQueue(apiQuery: string) {
  const refetchInterval = usePollInterval(POLL_MS);
  return useInfiniteQuery({
    queryKey: ['queue', apiQuery],
    queryFn: ({ pageParam }) => api.queue(pageParam ? `${apiQuery}&cursor=${encodeURIComponent(pageParam)}` : apiQuery),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
    refetchInterval,
    placeholderData: keepPreviousData,
  });
}

export function useChannelCounts() {
  const refetchInterval = usePollInterval(POLL_MS);
  return useQuery({ queryKey: ['channels'], queryFn: () => api.channels(), refetchInterval });
}
