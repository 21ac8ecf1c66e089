import { useCallback, useEffect } from 'react';

interface PagedQuery {
  readonly hasNextPage: boolean;
  readonly isFetchingNextPage: boolean;
  readonly isFetchNextPageError: boolean;
  fetchNextPage(): Promise<unknown>;
}

/** Asks for the next page when the list's end is reached, once at a time. */
export function useNextPages(query: PagedQuery) {
  const { hasNextPage, isFetchingNextPage, isFetchNextPageError, fetchNextPage } = query;
  const fetchMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage && !isFetchNextPageError) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, isFetchNextPageError, fetchNextPage]);
  // A page that failed to load is tried again a few seconds later: without this, one failed page
  // (the API busy for a moment) left the list stuck at its end until the reviewer reloaded.
  useEffect(() => {
    if (!isFetchNextPageError) return;
    const timer = setTimeout(() => void fetchNextPage(), 3_000);
    return () => clearTimeout(timer);
  }, [isFetchNextPageError, fetchNextPage]);
  return fetchMore;
}
