import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useRef, useState } from 'react';
import { api, ApiError, conflictMessage } from '../api/client';
import type { BatchResult } from '../api/types';
import { type PendingDecision, usePendingDecision } from './usePendingDecision';

/**
 * The queue's decisions: a decided frame is hidden at once and its decision sent after the undo
 * delay (one frame or a batch); a refused one comes back with the reason, a batch's outcomes are
 * kept for the results bar, and the queue, the channels and the stats are read again once sent.
 */
export function useQueueDecisions(undoMs?: number) {
  const client = useQueryClient();
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const hiddenRef = useRef(hidden);
  hiddenRef.current = hidden;
  const [message, setMessage] = useState<string | null>(null);
  const [results, setResults] = useState<readonly BatchResult[]>([]);

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

  /** A frame decided and waiting out its undo delay keeps its claim when the selection moves on (useClaim). */
  const keep = useCallback((id: string) => hiddenRef.current.has(id), []);

  return { hidden, keep, hideAll, message, setMessage, results, setResults, pending, schedule, undo };
}
