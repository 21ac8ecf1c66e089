import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { draftMoment, MomentForm } from './MomentForm';

describe('MomentForm', () => {
  afterEach(cleanup);

  it('makes a moment without an end, a range with one, and nothing when incomplete or reversed', () => {
    expect(draftMoment('1.5', '', 'Logo', null)).toEqual({ at: 1.5, label: 'Logo' });
    expect(draftMoment('1', '2.25', ' Flicker ', { x: 0.1, y: 0.2, width: 0.3, height: 0.4, label: 'x' })).toEqual({
      start: 1,
      end: 2.25,
      label: 'Flicker',
      region: { x: 0.1, y: 0.2, width: 0.3, height: 0.4 },
    });
    expect(draftMoment('2', '1', 'Reversed', null)).toBeNull();
    expect(draftMoment('1', '', '  ', null)).toBeNull();
    expect(draftMoment('', '', 'No time', null)).toBeNull();
  });

  it('marks in and out from the player time and adds the item with the drawn region', () => {
    const onChange = vi.fn();
    const onClearRegion = vi.fn();
    const { rerender } = render(
      <MomentForm time={1.24} region={null} onClearRegion={onClearRegion} moments={[]} onChange={onChange} />,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Mark in' }));
    rerender(
      <MomentForm
        time={2.5}
        region={{ x: 0.25, y: 0.25, width: 0.5, height: 0.5, label: '' }}
        onClearRegion={onClearRegion}
        moments={[]}
        onChange={onChange}
      />,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Mark out' }));
    expect(screen.getByRole('textbox', { name: 'Start (seconds)' })).toHaveProperty('value', '1.24');
    expect(screen.getByRole('textbox', { name: 'End (seconds, optional)' })).toHaveProperty('value', '2.5');
    fireEvent.change(screen.getByRole('textbox', { name: 'Label of the item' }), { target: { value: 'Flicker' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add item' }));
    expect(onChange).toHaveBeenCalledWith([
      { start: 1.24, end: 2.5, label: 'Flicker', region: { x: 0.25, y: 0.25, width: 0.5, height: 0.5 } },
    ]);
    expect(onClearRegion).toHaveBeenCalled();
  });
});
