import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Region } from '../api/types';
import { labelled, regionBetween, RegionEditor, regionKey, RegionList } from './Regions';

/** The editor and its list over one state, as the detail view holds them. */
function Harness({ initial = [] }: { readonly initial?: Region[] }) {
  const [regions, setRegions] = useState<Region[]>(initial);
  return (
    <>
      <RegionEditor regions={regions} onChange={setRegions} drawing={false} />
      <RegionList regions={regions} onChange={setRegions} />
      <output data-testid="state">{JSON.stringify(regions)}</output>
    </>
  );
}
const state = () => JSON.parse(screen.getByTestId('state').textContent!) as Region[];
const box = { x: 0.1, y: 0.2, width: 0.3, height: 0.4, label: 'Logo' };

describe('regions', () => {
  afterEach(cleanup);

  it('turns a drag either way into the same box, kept inside the image and rounded to 4 decimals', () => {
    expect(regionBetween({ x: 0.5, y: 0.6 }, { x: 0.123456, y: 0.2 })).toEqual({
      x: 0.1235,
      y: 0.2,
      width: 0.3765,
      height: 0.4,
      label: '',
    });
    expect(regionBetween({ x: -0.2, y: 0.9 }, { x: 0.3, y: 1.4 })).toEqual({
      x: 0,
      y: 0.9,
      width: 0.3,
      height: 0.1,
      label: '',
    });
  });

  it('moves with the arrows, resizes with Shift, steps ten times with Alt, removes with Delete, and stays inside', () => {
    expect(regionKey(box, 'ArrowRight')).toEqual({ ...box, x: 0.11 });
    expect(regionKey(box, 'ArrowUp', { alt: true })).toEqual({ ...box, y: 0.1 });
    expect(regionKey(box, 'ArrowDown', { shift: true })).toEqual({ ...box, height: 0.41 });
    expect(regionKey(box, 'ArrowLeft', { shift: true })).toEqual({ ...box, width: 0.29 });
    expect(regionKey({ ...box, x: 0.7 }, 'ArrowRight')).toEqual({ ...box, x: 0.7 });
    expect(regionKey({ ...box, width: 0.01 }, 'ArrowLeft', { shift: true })?.width).toBe(0.01);
    expect(regionKey(box, 'Delete')).toBeNull();
    expect(regionKey(box, 'Backspace')).toBeNull();
    expect(regionKey(box, 'a')).toBeUndefined();
  });

  it('adds a box from the keyboard, moves and resizes it with the keys on its focused box, labels it and removes it', () => {
    render(<Harness />);
    fireEvent.click(screen.getByRole('button', { name: 'Add region' }));
    expect(state()).toEqual([{ x: 0.4, y: 0.4, width: 0.2, height: 0.2, label: '' }]);

    const drawn = screen.getByRole('group', { name: /^Region 1/ });
    fireEvent.keyDown(drawn, { key: 'ArrowLeft' });
    fireEvent.keyDown(drawn, { key: 'ArrowDown', shiftKey: true });
    expect(state()).toEqual([{ x: 0.39, y: 0.4, width: 0.2, height: 0.21, label: '' }]);

    fireEvent.change(screen.getByLabelText('Label of region 1'), { target: { value: 'Blurred face' } });
    expect(state()[0]!.label).toBe('Blurred face');
    expect(screen.getByRole('group', { name: /^Region 1: Blurred face/ }).textContent).toBe('Blurred face');

    fireEvent.keyDown(screen.getByRole('group', { name: /^Region 1/ }), { key: 'Delete' });
    expect(state()).toEqual([]);
  });

  it('removes one box of two with its Remove button, and leaves keys it does not own alone', () => {
    render(<Harness initial={[box, { ...box, x: 0.5, label: 'Text' }]} />);
    const first = screen.getByRole('group', { name: /^Region 1: Logo/ });
    const event = new KeyboardEvent('keydown', { key: 'p', bubbles: true, cancelable: true });
    first.dispatchEvent(event);
    expect(event.defaultPrevented).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Remove region 1' }));
    expect(state()).toEqual([{ ...box, x: 0.5, label: 'Text' }]);
  });

  it('sends a box without a label as "Region n"', () => {
    expect(labelled([box, { ...box, label: '  ' }]).map((r) => r.label)).toEqual(['Logo', 'Region 2']);
  });
});
