import type { QueueItem } from '../api/types';
import { SimilarBadge } from './SimilarBadge';

export interface QueueListProps {
  readonly items: readonly QueueItem[];
  readonly selectedId: string | null;
  readonly onSelect: (id: string) => void;
}

export function itemName(item: Pick<QueueItem, 'title' | 'id'>): string {
  return item.title ?? item.id;
}

/** The frames waiting for review, oldest first. Each item names its title and channel. */
export function QueueList({ items, selectedId, onSelect }: QueueListProps) {
  if (items.length === 0) return <p className="empty">Nothing waits for review.</p>;
  return (
    <ul className="queue" aria-label="Review queue">
      {items.map((item) => (
        <li
          key={item.id}
          aria-label={`${itemName(item)} — ${item.channel_slug}`}
          aria-current={item.id === selectedId ? 'true' : undefined}
        >
          <button
            type="button"
            className={item.id === selectedId ? 'queue-item selected' : 'queue-item'}
            onClick={() => onSelect(item.id)}
          >
            {item.thumbnail_url ? (
              <img src={item.thumbnail_url} alt="" width={64} height={64} loading="lazy" />
            ) : (
              <span className="thumb-placeholder" />
            )}
            <span className="queue-text">
              <strong>{itemName(item)}</strong>
              <span>
                {item.channel_slug} · {item.agent_slug} · {item.media_type} · {item.date}
              </span>
              <SimilarBadge count={item.similar_count} />
              {item.claim && !item.claim.mine && (
                <span className="claimed">Being reviewed by {item.claim.reviewer_email ?? 'someone'}</span>
              )}
            </span>
          </button>
        </li>
      ))}
    </ul>
  );
}
