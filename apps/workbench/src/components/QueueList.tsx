import type { QueueItem } from '../api/types';
import { SimilarBadge } from './SimilarBadge';

export interface QueueListProps {
  readonly items: readonly QueueItem[];
  readonly selectedId: string | null;
  readonly onSelect: (id: string) => void;
  /** Frames ticked for a bulk action, and how to tick one (`range`: shift held). */
  readonly checked?: ReadonlySet<string>;
  readonly onCheck?: (id: string, range: boolean) => void;
  /** Large thumbnails in a grid, for visual triage. */
  readonly grid?: boolean;
}

export function itemName(item: Pick<QueueItem, 'title' | 'id'>): string {
  return item.title ?? item.id;
}

/** One frame of the queue: its bulk checkbox and the button that opens it. */
function QueueEntry({
  item,
  selected,
  grid,
  checked,
  onSelect,
  onCheck,
}: {
  readonly item: QueueItem;
  readonly selected: boolean;
  readonly grid: boolean;
  readonly checked: boolean;
  readonly onSelect: (id: string) => void;
  readonly onCheck: ((id: string, range: boolean) => void) | undefined;
}) {
  const size = grid ? 240 : 64;
  return (
    <li
      aria-label={`${itemName(item)} — ${item.channel_slug}`}
      aria-current={selected ? 'true' : undefined}
      className={checked ? 'checked' : undefined}
    >
      {onCheck && (
        <input
          type="checkbox"
          className="pick"
          aria-label={`Select ${itemName(item)}`}
          checked={checked}
          onChange={(e) => onCheck(item.id, (e.nativeEvent as MouseEvent).shiftKey === true)}
        />
      )}
      <button
        type="button"
        className={selected ? 'queue-item selected' : 'queue-item'}
        data-id={item.id}
        onClick={() => onSelect(item.id)}
      >
        {item.thumbnail_url ? (
          <img src={item.thumbnail_url} alt="" width={size} height={size} loading="lazy" />
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
  );
}

/** The frames waiting for review, oldest first, as a list or a grid. Each item names its title and channel. */
export function QueueList({ items, selectedId, onSelect, checked, onCheck, grid = false }: QueueListProps) {
  if (items.length === 0) return <p className="empty">Nothing waits for review.</p>;
  return (
    <ul className={grid ? 'queue queue-grid' : 'queue'} aria-label="Review queue">
      {items.map((item) => (
        <QueueEntry
          key={item.id}
          item={item}
          selected={item.id === selectedId}
          grid={grid}
          checked={checked?.has(item.id) ?? false}
          onSelect={onSelect}
          onCheck={onCheck}
        />
      ))}
    </ul>
  );
}
