import type { QueueItem } from '../api/types';
import { Button } from '../ui';
import { itemName } from './QueueList';

/** The frames before and after this one in the queue, as thumbnails to jump to. */
export function Filmstrip({
  items,
  currentId,
  onOpen,
}: {
  readonly items: readonly QueueItem[];
  readonly currentId: string;
  readonly onOpen: (id: string) => void;
}) {
  return (
    <nav className="filmstrip" aria-label="Neighbouring frames">
      <ol>
        {items.map((item) => (
          <li key={item.id} aria-current={item.id === currentId ? 'true' : undefined}>
            <Button
              variant="plain"
              className="film"
              aria-label={`Open ${itemName(item)}`}
              onPress={() => onOpen(item.id)}
            >
              {item.thumbnail_url ? (
                <img src={item.thumbnail_url} alt="" loading="lazy" decoding="async" />
              ) : (
                <span className="thumb-placeholder" />
              )}
            </Button>
          </li>
        ))}
      </ol>
    </nav>
  );
}
