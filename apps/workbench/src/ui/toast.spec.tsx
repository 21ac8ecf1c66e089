import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { dismissToast, toast, Toaster } from './toast';

describe('toasts', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    act(() => dismissToast());
    cleanup();
    vi.useRealTimers();
  });

  it('shows a status in a labelled region, replaces the one with the same id and leaves after its time', async () => {
    render(<Toaster />);
    act(() => void toast('Promoted “Sunrise”.', { id: 'decision', durationMs: 1_000 }));
    act(() => void toast('Promoted “Sunset”.', { id: 'decision', durationMs: 1_000 }));
    const region = screen.getByRole('region', { name: 'Notifications' });
    expect(screen.getAllByRole('status').map((s) => s.textContent)).toEqual(['Promoted “Sunset”.']);
    expect(region.contains(screen.getByRole('status'))).toBe(true);
    await act(async () => vi.advanceTimersByTime(1_001));
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('waits while the pointer is over it, and its action runs once and closes it', async () => {
    const onAction = vi.fn();
    render(<Toaster />);
    act(() => void toast('Rejected 2 frames.', { durationMs: 1_000, action: { label: 'Undo', onAction } }));
    fireEvent.pointerEnter(screen.getByRole('region', { name: 'Notifications' }));
    await act(async () => vi.advanceTimersByTime(5_000));
    expect(screen.getByRole('status').textContent).toContain('Rejected 2 frames.');
    fireEvent.pointerLeave(screen.getByRole('region', { name: 'Notifications' }));
    fireEvent.click(screen.getByRole('button', { name: 'Undo' }));
    expect(onAction).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('says an error as an alert', () => {
    render(<Toaster />);
    act(() => void toast('Could not send the decision.', { tone: 'error' }));
    expect(screen.getByRole('alert').textContent).toBe('Could not send the decision.');
  });
});
