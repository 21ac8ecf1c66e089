import { useInfiniteQuery } from '@tanstack/react-query';
import { api, ApiError } from '../api/client';
import type { TimelinePage } from '../api/types';
import { itemName } from '../components/QueueList';
import { usePollInterval } from '../hooks/useReviewEvents';
import { Button, EmptyState, Skeleton } from '../ui';

type TimelineItem = TimelinePage['items'][number];

const formatDate = (date: string) => `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}`;

/** Items grouped by frame date, in timeline order. */
function byDate(items: readonly TimelineItem[]): [string, TimelineItem[]][] {
  const groups = new Map<string, TimelineItem[]>();
  for (const item of items) groups.set(item.date, [...(groups.get(item.date) ?? []), item]);
  return [...groups];
}

/** A channel's promoted frames as a grid per frame date (then promotion time), a page at a time. */
export function TimelineScreen({ slug, pageSize }: { readonly slug: string; readonly pageSize?: number }) {
  const refetchInterval = usePollInterval(10_000);
  const timeline = useInfiniteQuery({
    queryKey: ['timeline', slug, pageSize],
    queryFn: ({ pageParam }) => api.timeline(slug, pageParam, pageSize),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
    refetchInterval,
  });
  if (timeline.isPending) return <Skeleton lines={6} />;
  if (timeline.isError)
    return (
      <p role="alert">{timeline.error instanceof ApiError ? timeline.error.detail : 'Could not load the timeline.'}</p>
    );
  const { channel } = timeline.data.pages[0]!;
  const items = timeline.data.pages.flatMap((p) => p.items);
  return (
    <section className="timeline">
      <h2>Timeline of {channel.name}</h2>
      {items.length === 0 ? (
        <EmptyState title="Nothing promoted yet">Promoted frames of this channel appear here by frame date.</EmptyState>
      ) : (
        <ol aria-label={`Timeline of ${channel.slug}`} className="timeline-days">
          {byDate(items).map(([date, group]) => (
            <li key={date}>
              <h3>{formatDate(date)}</h3>
              <ul className="timeline-grid" aria-label={`Frames of ${formatDate(date)}`}>
                {group.map((item) => (
                  <li key={item.id} aria-label={`${itemName(item)} — ${item.date}`}>
                    {item.thumbnail_url ? (
                      <img src={item.thumbnail_url} alt="" width={192} height={192} loading="lazy" />
                    ) : (
                      <span className="thumb-placeholder" />
                    )}
                    <span className="timeline-text">
                      <strong>{itemName(item)}</strong>
                      <span className="meta-line">
                        {item.agent_slug} · promoted{' '}
                        {item.promoted_at ? new Date(item.promoted_at).toLocaleString() : ''}
                      </span>
                    </span>
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ol>
      )}
      {timeline.hasNextPage && (
        <Button isDisabled={timeline.isFetchingNextPage} onPress={() => void timeline.fetchNextPage()}>
          Load more
        </Button>
      )}
    </section>
  );
}
