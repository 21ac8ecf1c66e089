import { act, cleanup, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UNDO_MS, usePendingDecision } from './usePendingDecision';

describe('usePendingDecision', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
  });

  const promote = (id: string) => ({ id, title: id, decision: { decision: 'promote' as const } });

  it('sends a decision only when the undo window has passed', async () => {
    const send = vi.fn(async () => undefined);
    const { result } = renderHook(() => usePendingDecision({ send }));
    act(() => result.current.schedule(promote('sub_a')));
    expect(result.current.pending?.id).toBe('sub_a');
    await act(async () => vi.advanceTimersByTime(UNDO_MS - 1));
    expect(send).not.toHaveBeenCalled();
    await act(async () => vi.advanceTimersByTime(1));
    expect(send).toHaveBeenCalledWith(promote('sub_a'), false);
    expect(result.current.pending).toBeNull();
  });

  it('never sends an undone decision', async () => {
    const send = vi.fn(async () => undefined);
    const { result } = renderHook(() => usePendingDecision({ send }));
    act(() => result.current.schedule(promote('sub_a')));
    await act(async () => vi.advanceTimersByTime(UNDO_MS - 100));
    let undone: unknown;
    act(() => {
      undone = result.current.undo();
    });
    expect(undone).toEqual(promote('sub_a'));
    await act(async () => vi.advanceTimersByTime(UNDO_MS * 2));
    expect(send).not.toHaveBeenCalled();
  });

  it('sends the held decision at once when a newer one arrives or the reviewer leaves', async () => {
    const send = vi.fn(async () => undefined);
    const { result, unmount } = renderHook(() => usePendingDecision({ send }));
    act(() => result.current.schedule(promote('sub_a')));
    act(() => result.current.schedule(promote('sub_b')));
    expect(send).toHaveBeenCalledTimes(1);
    expect(send).toHaveBeenLastCalledWith(promote('sub_a'), false);
    unmount();
    expect(send).toHaveBeenCalledTimes(2);
    expect(send).toHaveBeenLastCalledWith(promote('sub_b'), true);
  });

  it('reports a failed send', async () => {
    const error = new Error('409');
    const onError = vi.fn();
    const { result } = renderHook(() => usePendingDecision({ send: () => Promise.reject(error), onError }));
    act(() => result.current.schedule(promote('sub_a')));
    await act(async () => vi.advanceTimersByTime(UNDO_MS));
    expect(onError).toHaveBeenCalledWith(promote('sub_a'), error);
  });
});
