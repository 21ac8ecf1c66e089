import { useState } from 'react';
import { DEFAULT_REJECT_REASONS, type DecisionInput, VISIBILITIES, type Visibility } from '../api/types';

export interface DecisionBarProps {
  readonly visibility: Visibility;
  readonly reasons?: readonly string[];
  readonly disabled?: boolean;
  readonly rejecting: boolean;
  readonly onRejecting: (open: boolean) => void;
  readonly onDecide: (decision: DecisionInput) => void;
  readonly onVisibility: (visibility: Visibility) => void;
}

/** Promote, Reject (a reason from the list plus free text) and the visibility select. */
export function DecisionBar({
  visibility,
  reasons = DEFAULT_REJECT_REASONS,
  disabled,
  rejecting,
  onRejecting,
  onDecide,
  onVisibility,
}: DecisionBarProps) {
  const [reason, setReason] = useState('');
  const [note, setNote] = useState('');
  const needsNote = reason === 'Other' && note.trim() === '';
  const confirm = () => {
    if (!reason || needsNote) return;
    onDecide({ decision: 'reject', reason, ...(note.trim() ? { note: note.trim() } : {}) });
    setReason('');
    setNote('');
  };
  return (
    <div className="decisions">
      <div className="decision-buttons">
        <button
          type="button"
          className="promote"
          disabled={disabled}
          onClick={() => onDecide({ decision: 'promote' })}
          aria-keyshortcuts="p"
        >
          Promote
        </button>
        <button
          type="button"
          className="reject"
          disabled={disabled}
          onClick={() => onRejecting(!rejecting)}
          aria-keyshortcuts="r"
          aria-expanded={rejecting}
        >
          Reject
        </button>
        <label>
          Visibility
          <select value={visibility} disabled={disabled} onChange={(e) => onVisibility(e.target.value as Visibility)}>
            {VISIBILITIES.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        </label>
      </div>
      {rejecting && (
        <form
          className="reject-form"
          aria-label="Rejection details"
          onSubmit={(e) => {
            e.preventDefault();
            confirm();
          }}
        >
          <label>
            Reason
            <select autoFocus value={reason} onChange={(e) => setReason(e.target.value)} required>
              <option value="">Choose a reason…</option>
              {reasons.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <label>
            Note
            <textarea
              value={note}
              onChange={(e) => setNote(e.target.value)}
              maxLength={1000}
              placeholder={reason === 'Other' ? 'Required: say why' : 'Optional detail for the agent'}
            />
          </label>
          <button type="submit" disabled={!reason || needsNote}>
            Confirm rejection
          </button>
          <button type="button" onClick={() => onRejecting(false)}>
            Cancel
          </button>
        </form>
      )}
    </div>
  );
}
