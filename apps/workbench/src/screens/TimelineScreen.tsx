import { useQuery } from '@tanstack/react-query';
import { api, ApiError } from '../api/client';
import { itemName } from '../components/QueueList';

/** A channel's promoted frames in timeline order (frame date, then promotion time). */
export function TimelineScreen({ slug }: { readonly slug: string }) {
  const timeline = useQuery({
    queryKey: ['timeline', slug],
    queryFn: () => api.timeline(slug),
    refetchInterval: 10_000,
  });
  if (timeline.isPending) return <p>Loading…</p>;
  if (timeline.isError)
    return (
      <p role="alert">{timeline.error instanceof ApiError ? timeline.error.detail : 'Could not load the timeline.'}</p>
    );
  const { channel, items } = timeline.data;
  return (
    <section className="timeline">
      <h2>Timeline of {channel.name}</h2>
      {items.length === 0 ? (
        <p className="empty">Nothing promoted yet.</p>
      ) : (
        <ol aria-label={`Timeline of ${channel.slug}`}>
          {items.map((item) => (
            <li key={item.id} aria-label={`${itemName(item)} — ${item.date}`}>
              {item.thumbnail_url ? (
                <img src={item.thumbnail_url} alt="" width={128} height={128} loading="lazy" />
              ) : (
                <span className="thumb-placeholder" />
              )}
              <span>
                <strong>{itemName(item)}</strong>
                <br />
                {item.date} · {item.agent_slug} · promoted{' '}
                {item.promoted_at ? new Date(item.promoted_at).toLocaleString() : ''}
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
