import type { PendingDecision } from '../hooks/usePendingDecision';

export function UndoToast({
  pending,
  onUndo,
}: {
  readonly pending: PendingDecision | null;
  readonly onUndo: () => void;
}) {
  if (!pending) return null;
  const verb = pending.decision.decision === 'promote' ? 'Promoted' : 'Rejected';
  return (
    <div className="toast" role="status">
      {pending.batch ? `${verb} ${pending.batch.length} frames.` : `${verb} “${pending.title}”.`}{' '}
      <button type="button" onClick={onUndo} aria-keyshortcuts="u">
        Undo
      </button>
    </div>
  );
}
