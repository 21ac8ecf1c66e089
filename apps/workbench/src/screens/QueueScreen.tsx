import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api, ApiError, conflictMessage } from '../api/client';
import type { DecisionInput, SubmissionDetail } from '../api/types';
import { ChannelCounts } from '../components/ChannelCounts';
import { itemName, QueueList } from '../components/QueueList';
import { QueueFilters } from '../components/QueueFilters';
import { duplicateOf } from '../components/SimilarFrames';
import { SubmissionDetailView } from '../components/SubmissionDetailView';
import { UndoToast } from '../components/UndoToast';
import { useClaim } from '../hooks/useClaim';
import { useKeyboard } from '../hooks/useKeyboard';
import { type PendingDecision, usePendingDecision } from '../hooks/usePendingDecision';
import { useChannelCounts, useQueue, queueQueryOf } from '../hooks/useQueue';
import type { Route } from '../hooks/useRoute';

export interface QueueScreenProps {
  readonly route: Route;
  readonly reasons?: readonly string[];
  readonly undoMs?: number;
}

/** The review queue beside the selected frame; j/k move, p promote, r reject, d duplicate, u undo. */
export function QueueScreen({ route, reasons, undoMs }: QueueScreenProps) {
  const client = useQueryClient();
  const apiQuery = queueQueryOf(route.query);
  const queue = useQueue(apiQuery);
  const counts = useChannelCounts();
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const hiddenRef = useRef(hidden);
  hiddenRef.current = hidden;
  const [message, setMessage] = useState<string | null>(null);
  const [rejecting, setRejecting] = useState(false);

  const items = useMemo(() => (queue.data?.items ?? []).filter((i) => !hidden.has(i.id)), [queue.data, hidden]);
  const selectedParam = route.query.get('selected');
  const selectedId = selectedParam ?? items[0]?.id ?? null;
  const { setQuery } = route;

  useEffect(() => {
    if (!selectedParam && items[0]) setQuery({ selected: items[0].id }, { replace: true });
  }, [selectedParam, items, setQuery]);

  const hide = (id: string, on: boolean) =>
    setHidden((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  const refresh = useCallback(() => {
    void client.invalidateQueries({ queryKey: ['queue'] });
    void client.invalidateQueries({ queryKey: ['channels'] });
  }, [client]);

  const { pending, schedule, undo } = usePendingDecision({
    ...(undoMs !== undefined ? { delayMs: undoMs } : {}),
    send: (p: PendingDecision, leaving) => api.decide(p.id, p.decision, leaving),
    onSent: (p) => {
      void client.invalidateQueries({ queryKey: ['submission', p.id] });
      refresh();
    },
    onError: (p, error) => {
      const conflict = conflictMessage(error);
      if (conflict) {
        setMessage(conflict);
        void client.invalidateQueries({ queryKey: ['submission', p.id] });
        refresh();
        return;
      }
      hide(p.id, false);
      setMessage(
        `Could not ${p.decision.decision} “${p.title}”: ${error instanceof ApiError ? error.detail : 'the server did not answer'}.`,
      );
    },
  });

  const keep = useCallback((id: string) => hiddenRef.current.has(id), []);
  const claim = useClaim(selectedId, keep);

  const neighbour = (offset: number): string | null => {
    const index = items.findIndex((i) => i.id === selectedId);
    return items[index + offset]?.id ?? null;
  };
  const select = (id: string | null) => {
    setRejecting(false);
    setQuery({ selected: id });
  };

  const decide = (submission: SubmissionDetail, decision: DecisionInput) => {
    const next = neighbour(1) ?? neighbour(-1);
    setMessage(null);
    hide(submission.id, true);
    schedule({ id: submission.id, title: itemName(submission), decision });
    select(next);
  };

  const onUndo = () => {
    const restored = undo();
    if (!restored) return;
    hide(restored.id, false);
    select(restored.id);
  };

  // Subscribed (not read once from the cache), so the keys work as soon as the detail arrives.
  const current = useQuery({
    queryKey: ['submission', selectedId],
    queryFn: () => api.submission(selectedId!),
    enabled: selectedId !== null,
  }).data;
  const decidable = current && current.status === 'needs_review' && !hidden.has(current.id);
  useKeyboard({
    j: () => neighbour(1) && select(neighbour(1)),
    k: () => neighbour(-1) && select(neighbour(-1)),
    p: () => decidable && decide(current, { decision: 'promote' }),
    r: () => decidable && setRejecting(true),
    d: () => decidable && current.similar[0] && decide(current, duplicateOf(current.similar[0])),
    u: onUndo,
    Escape: () => setRejecting(false),
  });

  return (
    <div className="queue-screen">
      <aside className="queue-pane">
        <QueueFilters
          query={route.query}
          channels={counts.data?.channels ?? []}
          onChange={(patch) => setQuery(patch)}
        />
        <ChannelCounts
          channels={counts.data?.channels ?? []}
          onPick={(slug) => setQuery({ channel: slug, selected: null })}
        />
        {queue.isError && (
          <p role="alert">{queue.error instanceof ApiError ? queue.error.detail : 'Could not load the queue.'}</p>
        )}
        {queue.isPending ? (
          <p>Loading…</p>
        ) : (
          <QueueList items={items} selectedId={selectedId} onSelect={(id) => select(id)} />
        )}
        <p className="hint">j/k move · p promote · r reject · d duplicate of the closest · u undo</p>
      </aside>
      <div className="detail-pane">
        {message && (
          <p className="conflict" role="alert">
            {message}
          </p>
        )}
        <UndoToast pending={pending} onUndo={onUndo} />
        {selectedId && !hidden.has(selectedId) ? (
          <SubmissionDetailView
            key={selectedId}
            id={selectedId}
            claim={claim}
            {...(reasons ? { reasons } : {})}
            rejecting={rejecting}
            onRejecting={setRejecting}
            onDecide={decide}
          />
        ) : (
          <p className="empty">Pick a frame from the queue.</p>
        )}
      </div>
    </div>
  );
}
