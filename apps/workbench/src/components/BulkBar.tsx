import { useState } from 'react';
import type { BatchResult, DecisionInput } from '../api/types';
import { DEFAULT_REJECT_REASONS } from '../api/types';
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
  const [reason, setReason] = useState('');
  const [note, setNote] = useState('');
  if (count === 0) return null;
  const needsNote = reason === 'Other' && note.trim() === '';
  return (
    <div className="bulk" role="group" aria-label="Bulk actions">
      <button type="button" className="promote" onClick={() => onDecide({ decision: 'promote' })}>
        {`Promote selected (${count})`}
      </button>
      <button type="button" className="reject" aria-expanded={rejecting} onClick={() => setRejecting(!rejecting)}>
        {`Reject selected (${count})`}
      </button>
      <button type="button" onClick={onClear}>
        Clear selection
      </button>
      {rejecting && (
        <form
          className="reject-form"
          aria-label="Bulk rejection"
          onSubmit={(e) => {
            e.preventDefault();
            if (!reason || needsNote) return;
            onDecide({ decision: 'reject', reason, ...(note.trim() ? { note: note.trim() } : {}) });
            setRejecting(false);
            setReason('');
            setNote('');
          }}
        >
          <label>
            Reason for all
            <select value={reason} onChange={(e) => setReason(e.target.value)} required>
              <option value="">Choose a reason…</option>
              {/* A duplicate names its earlier frame, one per frame: not a reason for a whole batch. */}
              {withoutDuplicateOf(reasons).map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <label>
            Note for all
            <textarea value={note} onChange={(e) => setNote(e.target.value)} maxLength={1000} />
          </label>
          <button type="submit" disabled={!reason || needsNote}>
            {`Confirm rejection (${count})`}
          </button>
        </form>
      )}
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
      <button type="button" onClick={onDismiss}>
        Dismiss
      </button>
    </section>
  );
}
