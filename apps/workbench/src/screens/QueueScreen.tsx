import { useQuery } from '@tanstack/react-query';
import { type ReactNode, useEffect, useMemo, useRef, useState } from 'react';
import { api, ApiError } from '../api/client';
import type { DecisionInput, SubmissionDetail } from '../api/types';
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
import { useNextPages } from '../hooks/useNextPages';
import { useQueueNavigation } from '../hooks/useQueueNavigation';
import { useQueueDecisions } from '../hooks/useQueueDecisions';
import { UNDO_MS } from '../hooks/usePendingDecision';
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
  const apiQuery = queueQueryOf(route.query);
  const queue = useQueue(apiQuery);
  const channelCounts = useChannelCounts();
  const session = useSession();
  // A reviewer in no channel sees no frames: say why, not "nothing waits".
  const noChannels = session.data?.reviewer.role === 'reviewer' && channelCounts.data?.channels.length === 0;
  // A bulk rejection in one channel offers that channel's reasons.
  const bulkReasons =
    channelCounts.data?.channels.find((c) => c.slug === route.query.get('channel'))?.reject_reasons ?? reasons;
  const { hidden, keep, hideAll, message, setMessage, results, setResults, pending, schedule, undo } =
    useQueueDecisions(undoMs);
  const [rejecting, setRejecting] = useState(false);
  const [zones, setZones] = useState(true);
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

  const claim = useClaim(grid ? null : selectedId, keep);

  const { neighbour, select, step, open } = useQueueNavigation({
    items,
    selectedId,
    setQuery,
    setRejecting,
    setDetailOpen,
  });

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

  const fetchMore = useNextPages(queue);
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
        <DetailPane onBack={() => setDetailOpen(false)} message={message}>
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
        </DetailPane>
      )}
      <UndoToast pending={pending} onUndo={onUndo} durationMs={undoMs ?? UNDO_MS} />
    </div>
  );
}

/** The selected frame beside the list (in front of it on a phone, with a way back), under any conflict message. */
function DetailPane({
  onBack,
  message,
  children,
}: {
  readonly onBack: () => void;
  readonly message: string | null;
  readonly children: ReactNode;
}) {
  return (
    <div className="detail-pane">
      <Button variant="ghost" size="sm" className="back" onPress={onBack}>
        ← Back to the queue
      </Button>
      {message && (
        <p className="conflict" role="alert">
          {message}
        </p>
      )}
      {children}
    </div>
  );
}
