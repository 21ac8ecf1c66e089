import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api, ApiError, conflictMessage } from '../api/client';
import type { BatchResult, DecisionInput, SubmissionDetail } from '../api/types';
import { BatchResults, BulkBar } from '../components/BulkBar';
import { itemName, QueueList } from '../components/QueueList';
import { QueueHeader, useDensity } from '../components/QueueHeader';
import { QueueFilters } from '../components/QueueFilters';
import { duplicateOf } from '../components/SimilarFrames';
import { SubmissionDetailView } from '../components/SubmissionDetailView';
import { UndoToast } from '../components/UndoToast';
import { useBulkSelection } from '../hooks/useBulkSelection';
import { useClaim } from '../hooks/useClaim';
import { useKeyboard } from '../hooks/useKeyboard';
import { type PendingDecision, UNDO_MS, usePendingDecision } from '../hooks/usePendingDecision';
import { useChannelCounts, useQueue, queueQueryOf } from '../hooks/useQueue';
import type { Route } from '../hooks/useRoute';
import { useSession } from '../hooks/useSession';
import { Button, EmptyState, Skeleton } from '../ui';

export interface QueueScreenProps {
  readonly route: Route;
  readonly reasons?: readonly string[];
  readonly undoMs?: number;
}

/**
 * The review queue (a list beside the selected frame, or a grid) with bulk actions.
 * Keys: j/k move, p promote, r reject, d duplicate of the closest, u undo, x tick, g grid, z zoom, c click zones.
 */
export function QueueScreen({ route, reasons, undoMs }: QueueScreenProps) {
  const client = useQueryClient();
  const apiQuery = queueQueryOf(route.query);
  const queue = useQueue(apiQuery);
  const channelCounts = useChannelCounts();
  const session = useSession();
  // A reviewer in no channel sees no frames: say why, not "nothing waits".
  const noChannels = session.data?.reviewer.role === 'reviewer' && channelCounts.data?.channels.length === 0;
  // A bulk rejection in one channel offers that channel's reasons.
  const bulkReasons =
    channelCounts.data?.channels.find((c) => c.slug === route.query.get('channel'))?.reject_reasons ?? reasons;
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const hiddenRef = useRef(hidden);
  hiddenRef.current = hidden;
  const [message, setMessage] = useState<string | null>(null);
  const [rejecting, setRejecting] = useState(false);
  const [zones, setZones] = useState(true);
  const [results, setResults] = useState<readonly BatchResult[]>([]);
  const titles = useRef(new Map<string, string>());
  const grid = route.query.get('view') === 'grid';
  // On a phone the list and the detail take turns; this says the detail is in front.
  const [detailOpen, setDetailOpen] = useState(() => route.query.has('selected'));

  const [density, setDensity] = useDensity();
  const loaded = useMemo(() => queue.data?.pages.flatMap((p) => p.items) ?? [], [queue.data]);
  const items = useMemo(() => loaded.filter((i) => !hidden.has(i.id)), [loaded, hidden]);
  for (const item of items) titles.current.set(item.id, itemName(item));
  const bulk = useBulkSelection(items.map((i) => i.id));
  const selectedParam = route.query.get('selected');
  const selectedId = selectedParam ?? items[0]?.id ?? null;
  const { setQuery } = route;

  useEffect(() => {
    if (!selectedParam && items[0]) setQuery({ selected: items[0].id }, { replace: true });
  }, [selectedParam, items, setQuery]);

  const hideAll = (ids: readonly string[], on: boolean) =>
    setHidden((prev) => {
      const next = new Set(prev);
      for (const id of ids) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });

  const refresh = useCallback(() => {
    void client.invalidateQueries({ queryKey: ['queue'] });
    void client.invalidateQueries({ queryKey: ['channels'] });
    void client.invalidateQueries({ queryKey: ['stats'] });
  }, [client]);

  const { pending, schedule, undo } = usePendingDecision({
    ...(undoMs !== undefined ? { delayMs: undoMs } : {}),
    send: async (p: PendingDecision, leaving) => {
      if (!p.batch) return api.decide(p.id, p.decision, leaving);
      const answer = await api.decideBatch(
        p.batch.map((b) => b.id),
        p.decision,
        leaving,
      );
      setResults(answer.results);
      hideAll(
        answer.results.filter((r) => r.outcome === 'failed' && r.code === 'not_promotion_eligible').map((r) => r.id),
        false,
      );
      return answer;
    },
    onSent: (p) => {
      for (const b of p.batch ?? [p]) void client.invalidateQueries({ queryKey: ['submission', b.id] });
      refresh();
    },
    onError: (p, error) => {
      const conflict = conflictMessage(error);
      if (conflict && !p.batch) {
        setMessage(conflict);
        void client.invalidateQueries({ queryKey: ['submission', p.id] });
        refresh();
        return;
      }
      hideAll(
        (p.batch ?? [p]).map((b) => b.id),
        false,
      );
      setMessage(
        `Could not ${p.decision.decision} “${p.title}”: ${error instanceof ApiError ? error.detail : 'the server did not answer'}.`,
      );
    },
  });

  const keep = useCallback((id: string) => hiddenRef.current.has(id), []);
  const claim = useClaim(grid ? null : selectedId, keep);

  const neighbour = (offset: number, skip: ReadonlySet<string> = new Set()): string | null => {
    const index = items.findIndex((i) => i.id === selectedId);
    for (let i = index + offset; i >= 0 && i < items.length; i += offset) {
      if (!skip.has(items[i]!.id)) return items[i]!.id;
    }
    return null;
  };
  const select = (id: string | null) => {
    setRejecting(false);
    setQuery({ selected: id });
  };
  /** j/k: the next frame becomes the selected one and gets the focus (Enter opens it in the grid). */
  const step = (offset: number) => {
    const id = neighbour(offset);
    if (!id) return;
    select(id);
    requestAnimationFrame(() =>
      document.querySelector<HTMLButtonElement>(`button.queue-item[data-id="${CSS.escape(id)}"]`)?.focus(),
    );
  };
  const open = (id: string) => {
    setDetailOpen(true);
    setRejecting(false);
    setQuery({ selected: id, view: null });
  };

  const decide = (submission: SubmissionDetail, decision: DecisionInput) => {
    const next = neighbour(1) ?? neighbour(-1);
    setMessage(null);
    hideAll([submission.id], true);
    schedule({ id: submission.id, title: itemName(submission), decision });
    select(next);
  };

  const decideSelected = (decision: DecisionInput) => {
    const batch = bulk.visible.map((id) => ({ id, title: titles.current.get(id) ?? id }));
    if (batch.length === 0) return;
    setMessage(null);
    setResults([]);
    hideAll(
      batch.map((b) => b.id),
      true,
    );
    if (selectedId && bulk.checked.has(selectedId)) select(neighbour(1, bulk.checked) ?? neighbour(-1, bulk.checked));
    schedule({ id: batch[0]!.id, title: batch[0]!.title, decision, batch });
    bulk.clear();
  };

  const onUndo = () => {
    const restored = undo();
    if (!restored) return;
    hideAll(
      (restored.batch ?? [restored]).map((b) => b.id),
      false,
    );
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
    j: () => step(1),
    k: () => step(-1),
    p: () => decidable && decide(current, { decision: 'promote' }),
    r: () => decidable && setRejecting(true),
    d: () => decidable && current.similar[0] && decide(current, duplicateOf(current.similar[0])),
    u: onUndo,
    x: () => selectedId && bulk.toggle(selectedId),
    g: () => setQuery({ view: grid ? null : 'grid' }),
    c: () => setZones((z) => !z),
  });

  const { hasNextPage, isFetchingNextPage, isFetchNextPageError, fetchNextPage } = queue;
  const fetchMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage && !isFetchNextPageError) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, isFetchNextPageError, fetchNextPage]);
  // A page that failed to load is tried again a few seconds later: without this, one failed page
  // (the API busy for a moment) left the list stuck at its end until the reviewer reloaded.
  useEffect(() => {
    if (!isFetchNextPageError) return;
    const timer = setTimeout(() => void fetchNextPage(), 3_000);
    return () => clearTimeout(timer);
  }, [isFetchNextPageError, fetchNextPage]);
  const at = items.findIndex((i) => i.id === selectedId);
  const neighbours = at < 0 ? [] : items.slice(Math.max(0, at - 4), at + 5);

  const screenClass = ['queue-screen', grid ? 'grid-mode' : '', detailOpen ? 'detail-open' : ''].join(' ').trim();
  return (
    <div className={screenClass}>
      <section className="queue-pane" aria-label="Queue">
        <QueueFilters query={route.query} onChange={(patch) => setQuery(patch)} />
        <QueueHeader
          query={route.query}
          waiting={items.length}
          more={queue.hasNextPage}
          oldest={items[0]?.created_at ?? null}
          grid={grid}
          onGrid={(on) => setQuery({ view: on ? 'grid' : null })}
          density={density}
          onDensity={setDensity}
        />
        <BulkBar
          count={bulk.count}
          {...(bulkReasons ? { reasons: bulkReasons } : {})}
          onDecide={decideSelected}
          onClear={bulk.clear}
        />
        <BatchResults results={results} titles={titles.current} onDismiss={() => setResults([])} />
        {queue.isError && (
          <p role="alert">{queue.error instanceof ApiError ? queue.error.detail : 'Could not load the queue.'}</p>
        )}
        {queue.isPending ? (
          <Skeleton lines={8} />
        ) : noChannels ? (
          <EmptyState title="You are not a member of any channel yet; an admin can add you on the People screen." />
        ) : (
          <QueueList
            items={items}
            selectedId={selectedId}
            onSelect={open}
            checked={bulk.checked}
            onCheck={bulk.toggle}
            grid={grid}
            density={density}
            hasMore={queue.hasNextPage}
            onEndReached={fetchMore}
          />
        )}
      </section>
      {!grid && (
        <div className="detail-pane">
          <Button variant="ghost" size="sm" className="back" onPress={() => setDetailOpen(false)}>
            ← Back to the queue
          </Button>
          {message && (
            <p className="conflict" role="alert">
              {message}
            </p>
          )}
          {selectedId && !hidden.has(selectedId) ? (
            <SubmissionDetailView
              key={selectedId}
              id={selectedId}
              claim={claim}
              {...(reasons ? { reasons } : {})}
              rejecting={rejecting}
              onRejecting={setRejecting}
              onDecide={decide}
              zones={zones}
              onZones={setZones}
              neighbours={neighbours}
              onOpen={select}
            />
          ) : (
            <p className="hint">Pick a frame from the queue.</p>
          )}
        </div>
      )}
      <UndoToast pending={pending} onUndo={onUndo} durationMs={undoMs ?? UNDO_MS} />
    </div>
  );
}
