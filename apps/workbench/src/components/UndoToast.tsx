import { useEffect, useRef } from 'react';
import type { PendingDecision } from '../hooks/usePendingDecision';
import { dismissToast, toast } from '../ui';

const TOAST_ID = 'decision';

/** The held decision as a toast with Undo (also `u`); gone once it is sent or undone. */
export function UndoToast({
  pending,
  onUndo,
  durationMs,
}: {
  readonly pending: PendingDecision | null;
  readonly onUndo: () => void;
  readonly durationMs: number;
}) {
  const undo = useRef(onUndo);
  useEffect(() => {
    undo.current = onUndo;
  });
  useEffect(() => {
    if (!pending) {
      dismissToast(TOAST_ID);
      return;
    }
    const verb = pending.decision.decision === 'promote' ? 'Promoted' : 'Rejected';
    const text = pending.batch ? `${verb} ${pending.batch.length} frames.` : `${verb} “${pending.title}”.`;
    toast(text, {
      id: TOAST_ID,
      durationMs: durationMs + 1_000,
      action: { label: 'Undo', keys: 'u', onAction: () => undo.current() },
    });
  }, [pending, durationMs]);
  return null;
}
