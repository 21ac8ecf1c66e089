import { useCallback, useEffect, useRef, useState } from 'react';
import type { DecisionInput } from '../api/types';

export const UNDO_MS = 5_000;

export interface PendingDecision {
  readonly id: string;
  readonly title: string;
  readonly decision: DecisionInput;
  /** Several frames decided at once (one undo for all); `id`/`title` then name the first. */
  readonly batch?: readonly { readonly id: string; readonly title: string }[];
}

export interface PendingDecisionOptions {
  /** Sends the decision; `leaving` is true when the page is closing (use keepalive). */
  readonly send: (pending: PendingDecision, leaving: boolean) => Promise<unknown>;
  readonly onSent?: (pending: PendingDecision) => void;
  readonly onError?: (pending: PendingDecision, error: unknown) => void;
  readonly delayMs?: number;
}

/**
 * Undo by waiting: a decision is held for a few seconds (with an Undo toast) and only then
 * sent. A newer decision, or leaving the page, sends the held one at once.
 */
export function usePendingDecision(options: PendingDecisionOptions) {
  const [pending, setPending] = useState<PendingDecision | null>(null);
  const held = useRef<{ pending: PendingDecision; timer: ReturnType<typeof setTimeout> } | null>(null);
  const latest = useRef(options);
  useEffect(() => {
    latest.current = options;
  });
  const delayMs = options.delayMs ?? UNDO_MS;

  const flush = useCallback((leaving = false) => {
    const current = held.current;
    if (!current) return;
    clearTimeout(current.timer);
    held.current = null;
    setPending(null);
    latest.current.send(current.pending, leaving).then(
      () => latest.current.onSent?.(current.pending),
      (error: unknown) => latest.current.onError?.(current.pending, error),
    );
  }, []);

  const schedule = useCallback(
    (next: PendingDecision) => {
      flush();
      const timer = setTimeout(() => flush(), delayMs);
      held.current = { pending: next, timer };
      setPending(next);
    },
    [delayMs, flush],
  );

  /** Cancels the held decision; returns it so the caller can put the frame back. */
  const undo = useCallback((): PendingDecision | null => {
    const current = held.current;
    if (!current) return null;
    clearTimeout(current.timer);
    held.current = null;
    setPending(null);
    return current.pending;
  }, []);

  useEffect(() => {
    const leave = () => flush(true);
    window.addEventListener('pagehide', leave);
    return () => {
      window.removeEventListener('pagehide', leave);
      leave(); // leaving the screen sends what is held
    };
  }, [flush]);

  return { pending, schedule, undo, flush };
}
