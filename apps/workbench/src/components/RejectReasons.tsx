import { useState } from 'react';
import type { Region } from '../api/types';
import { Button, Kbd, TextField } from '../ui';
import { labelled } from './Regions';

/**
 * The reasons as a numbered list: a number key (or a click) picks one; a reason that needs no
 * note is sent at once, "Other" waits for its note.
 */
export function RejectReasons({
  reasons,
  confirmLabel,
  onConfirm,
  onCancel,
  regions = [],
  moments = 0,
}: {
  /** How many time-coded items the rejection carries. */
  readonly moments?: number;
  readonly reasons: readonly string[];
  /** The regions drawn on the frame, sent with the rejection. */
  readonly regions?: readonly Region[];
  readonly confirmLabel: string;
  readonly onConfirm: (reason: string, note: string) => void;
  readonly onCancel: () => void;
}) {
  const [reason, setReason] = useState('');
  const [note, setNote] = useState('');
  const needsNote = (r: string) => r === 'Other';
  const pick = (r: string, send: boolean) => {
    setReason(r);
    if (send && !needsNote(r)) onConfirm(r, note.trim());
  };
  return (
    <form
      className="reject-form"
      aria-label="Rejection details"
      onKeyDown={(e) => {
        if ((e.target as HTMLElement).tagName === 'TEXTAREA') return;
        const n = Number(e.key);
        if (Number.isInteger(n) && n >= 1 && n <= reasons.length) {
          e.preventDefault();
          pick(reasons[n - 1]!, true);
        }
      }}
      onSubmit={(e) => {
        e.preventDefault();
        if (reason && !(needsNote(reason) && !note.trim())) onConfirm(reason, note.trim());
      }}
    >
      <div role="group" aria-label="Reasons" className="reason-list">
        {reasons.map((r, i) => (
          <Button
            key={r}
            variant="plain"
            className="reason"
            aria-pressed={reason === r}
            autoFocus={i === 0}
            onPress={() => pick(r, false)}
          >
            <Kbd>{i + 1}</Kbd> {r}
          </Button>
        ))}
      </div>
      <TextField
        label="Note to the agent"
        multiline
        value={note}
        onChange={setNote}
        maxLength={1000}
        placeholder={needsNote(reason) ? 'Required: say why' : 'Optional detail for the agent'}
      />
      {regions.length > 0 && (
        <p className="reject-regions">
          {`With ${regions.length} region${regions.length === 1 ? '' : 's'}: ${labelled(regions)
            .map((r) => r.label)
            .join(', ')}`}
        </p>
      )}
      {moments > 0 && <p className="reject-moments">{`With ${moments} time-coded item${moments === 1 ? '' : 's'}`}</p>}
      <div className="form-actions">
        <Button type="submit" variant="danger" isDisabled={!reason || (needsNote(reason) && !note.trim())}>
          {confirmLabel}
        </Button>
        <Button variant="ghost" onPress={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
