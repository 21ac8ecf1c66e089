import { useState } from 'react';
import type { BatchResult, DecisionInput } from '../api/types';
import { DEFAULT_REJECT_REASONS } from '../api/types';
import { Button, DialogTrigger, Kbd, PopoverDialog } from '../ui';
import { RejectReasons } from './RejectReasons';
import { withoutDuplicateOf } from './SimilarFrames';

export interface BulkBarProps {
  readonly count: number;
  readonly reasons?: readonly string[];
  readonly onDecide: (decision: DecisionInput) => void;
  readonly onClear: () => void;
}

/** Promote or reject every ticked frame at once; a rejection takes one reason for all. */
export function BulkBar({ count, reasons = DEFAULT_REJECT_REASONS, onDecide, onClear }: BulkBarProps) {
  const [rejecting, setRejecting] = useState(false);
  if (count === 0) return null;
  return (
    <div className="bulk" role="group" aria-label="Bulk actions">
      <strong className="bulk-count">{count} selected</strong>
      <Button variant="success" size="sm" onPress={() => onDecide({ decision: 'promote' })}>
        {`Promote selected (${count})`}
      </Button>
      <DialogTrigger isOpen={rejecting} onOpenChange={setRejecting}>
        <Button variant="danger" size="sm">{`Reject selected (${count})`}</Button>
        <PopoverDialog label="Bulk rejection">
          <RejectReasons
            // A duplicate names its earlier frame, one per frame: not a reason for a whole batch.
            reasons={withoutDuplicateOf(reasons)}
            confirmLabel={`Confirm rejection (${count})`}
            onCancel={() => setRejecting(false)}
            onConfirm={(reason, note) => {
              onDecide({ decision: 'reject', reason, ...(note ? { note } : {}) });
              setRejecting(false);
            }}
          />
        </PopoverDialog>
      </DialogTrigger>
      <Button variant="ghost" size="sm" onPress={onClear}>
        Clear selection
      </Button>
      <span className="bulk-keys hint">
        <Kbd>x</Kbd> tick · <Kbd>shift</Kbd>-click range · <Kbd>u</Kbd> undo
      </span>
    </div>
  );
}

const WHY: Record<string, string> = {
  invalid_transition: 'Another reviewer decided this frame first',
  claimed_by_other: 'Another reviewer is reviewing this frame',
  not_promotion_eligible: 'not promotion_eligible; change its visibility first',
};

/** What a batch did, frame by frame: decided, or why not. */
export function BatchResults({
  results,
  titles,
  onDismiss,
}: {
  readonly results: readonly BatchResult[];
  readonly titles: ReadonlyMap<string, string>;
  readonly onDismiss: () => void;
}) {
  if (results.length === 0) return null;
  return (
    <section className="batch-results" aria-label="Batch results">
      <ul>
        {results.map((r) => (
          <li key={r.id} className={r.outcome === 'failed' ? 'lost' : 'won'}>
            {titles.get(r.id) ?? r.id}:{' '}
            {r.outcome === 'failed' ? `not decided — ${WHY[r.code] ?? r.detail}` : r.outcome}
          </li>
        ))}
      </ul>
      <Button size="sm" variant="ghost" onPress={onDismiss}>
        Dismiss
      </Button>
    </section>
  );
}
