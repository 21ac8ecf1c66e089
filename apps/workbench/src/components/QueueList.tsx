import { useEffect, useState } from 'react';
import type { QueueItem } from '../api/types';
import { useRowWindow } from '../hooks/useRowWindow';
import { Badge, Button, Checkbox, EmptyState } from '../ui';
import { PolicyChips } from './PolicyMeta';
import { MediaIcon, RelativeTime } from './QueueMeta';
import { SimilarBadge } from './SimilarBadge';

export type Density = 'comfortable' | 'compact';

export interface QueueListProps {
  readonly items: readonly QueueItem[];
  readonly selectedId: string | null;
  readonly onSelect: (id: string) => void;
  /** Frames ticked for a bulk action, and how to tick one (`range`: shift held). */
  readonly checked?: ReadonlySet<string>;
  readonly onCheck?: (id: string, range: boolean) => void;
  /** Large thumbnails in a grid, for visual triage. */
  readonly grid?: boolean;
  readonly density?: Density;
  /** More pages wait on the server: asked for when the end of the list comes near. */
  readonly hasMore?: boolean;
  readonly onEndReached?: () => void;
}

export function itemName(item: Pick<QueueItem, 'title' | 'id'>): string {
  return item.title ?? item.id;
}

const ROW_HEIGHT: Record<Density, number> = { comfortable: 84, compact: 52 };
const GRID_MIN = 240;

/** One frame of the queue: its bulk checkbox and the button that opens it. */
function QueueEntry({
  item,
  selected,
  checked,
  onSelect,
  onCheck,
  style,
}: {
  readonly item: QueueItem;
  readonly selected: boolean;
  readonly checked: boolean;
  readonly onSelect: (id: string) => void;
  readonly onCheck: ((id: string, range: boolean) => void) | undefined;
  readonly style: React.CSSProperties;
}) {
  const classes = ['queue-row', selected ? 'selected' : '', checked ? 'checked' : ''].filter(Boolean).join(' ');
  return (
    <li
      aria-label={`${itemName(item)} — ${item.channel_slug}`}
      aria-current={selected ? 'true' : undefined}
      className={classes}
      style={style}
    >
      {onCheck && (
        <Checkbox
          className="pick"
          aria-label={`Select ${itemName(item)}`}
          isSelected={checked}
          onChange={(_, range) => onCheck(item.id, range)}
        />
      )}
      <Button variant="plain" className="queue-item" data-id={item.id} onPress={() => onSelect(item.id)}>
        {item.thumbnail_url ? (
          <img className="thumb" src={item.thumbnail_url} alt="" loading="lazy" decoding="async" />
        ) : (
          <span className="thumb thumb-placeholder" />
        )}
        <span className="queue-text">
          <strong className="queue-title">{itemName(item)}</strong>
          <span className="meta-line">
            <MediaIcon type={item.media_type} />
            <span className="agent">{item.agent_slug}</span>
            <span aria-hidden="true">·</span>
            <RelativeTime iso={item.created_at} />
            <span aria-hidden="true">·</span>
            <span title="Frame date">{`${item.date.slice(0, 4)}-${item.date.slice(4, 6)}-${item.date.slice(6, 8)}`}</span>
          </span>
          <span className="chips">
            <SimilarBadge count={item.similar_count} />
            <PolicyChips item={item} />
            {item.claim && !item.claim.mine && (
              <Badge tone="warning" className="claimed">
                Being reviewed by {item.claim.reviewer_email ?? 'someone'}
              </Badge>
            )}
          </span>
        </span>
      </Button>
    </li>
  );
}

/** Width of an element, kept up to date. */
function useWidth(el: HTMLElement | null): number {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    if (!el || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => setWidth(el.clientWidth));
    observer.observe(el);
    return () => observer.disconnect();
  }, [el]);
  return width;
}

/**
 * The frames waiting for review, oldest first, as a list or a grid. Virtualised: only the rows in
 * view (plus a few) are in the DOM, so ten thousand frames scroll as smoothly as ten.
 */
export function QueueList(props: QueueListProps) {
  const { items, selectedId, onSelect, checked, onCheck, grid = false, density = 'comfortable' } = props;
  const [scroller, setScroller] = useState<HTMLDivElement | null>(null);
  const width = useWidth(scroller);
  const cols = grid ? Math.max(1, Math.floor((width || GRID_MIN) / GRID_MIN)) : 1;
  const cell = grid ? (width || GRID_MIN) / cols : 0;
  const rowHeight = grid ? Math.round(cell + 72) : ROW_HEIGHT[density];
  const rows = Math.ceil(items.length / cols);
  const view = useRowWindow({ scroller, count: rows, rowHeight, overscan: 6 });

  const last = view.rows.at(-1)?.index;
  const { hasMore, onEndReached } = props;
  useEffect(() => {
    if (hasMore && onEndReached && last !== undefined && last >= rows - 8) onEndReached();
  }, [hasMore, onEndReached, last, rows]);

  const selectedIndex = selectedId ? items.findIndex((i) => i.id === selectedId) : -1;
  const { scrollToRow } = view;
  useEffect(() => {
    if (selectedIndex >= 0) scrollToRow(Math.floor(selectedIndex / cols));
  }, [selectedIndex, cols, scrollToRow]);

  if (items.length === 0)
    return <EmptyState title="Nothing waits for review.">New frames appear here as agents send them.</EmptyState>;
  return (
    <div ref={setScroller} className={`queue-scroll density-${density}`} data-testid="queue-scroll">
      <ul
        className={grid ? 'queue queue-grid' : 'queue'}
        aria-label="Review queue"
        style={{ height: view.totalHeight }}
      >
        {view.rows.flatMap((row) =>
          items.slice(row.index * cols, row.index * cols + cols).map((item, col) => (
            <QueueEntry
              key={item.id}
              item={item}
              selected={item.id === selectedId}
              checked={checked?.has(item.id) ?? false}
              onSelect={onSelect}
              onCheck={onCheck}
              style={{
                transform: `translate(${col * cell}px, ${row.start}px)`,
                width: grid ? cell : '100%',
                height: rowHeight,
              }}
            />
          )),
        )}
      </ul>
    </div>
  );
}
