import { type KeyboardEvent, type PointerEvent, useRef, useState } from 'react';
import type { Region } from '../api/types';
import { Button, TextField } from '../ui';
import './feedback.css';

/** One keyboard step: 1% of the image (10% with Alt). */
const STEP = 0.01;
const MIN_SIZE = 0.01;
/** A box added from the keyboard: centred, a fifth of each side. */
const NEW_BOX = { x: 0.4, y: 0.4, width: 0.2, height: 0.2 } as const;

/** As the API stores them: 4 decimals, so what the agent reads back is exactly what was drawn. */
const round = (n: number) => Math.round(n * 10_000) / 10_000;
const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

/** A box kept inside the image with a positive size, rounded like the API's. */
export function normaliseRegion(r: Region): Region {
  const width = clamp(round(r.width), MIN_SIZE, 1);
  const height = clamp(round(r.height), MIN_SIZE, 1);
  return {
    x: round(clamp(r.x, 0, 1 - width)),
    y: round(clamp(r.y, 0, 1 - height)),
    width,
    height,
    label: r.label,
  };
}

/** The box between two points of a drag (fractions), whichever way it was dragged. */
export function regionBetween(a: { x: number; y: number }, b: { x: number; y: number }, label = ''): Region {
  const [ax, ay, bx, by] = [a.x, a.y, b.x, b.y].map((n) => clamp(n, 0, 1)) as [number, number, number, number];
  return normaliseRegion({
    x: Math.min(ax, bx),
    y: Math.min(ay, by),
    width: Math.abs(ax - bx),
    height: Math.abs(ay - by),
    label,
  });
}

const ARROWS: Record<string, [number, number]> = {
  ArrowLeft: [-1, 0],
  ArrowRight: [1, 0],
  ArrowUp: [0, -1],
  ArrowDown: [0, 1],
};

/**
 * What a key does to a focused box: arrows move it, Shift+arrows resize it (Alt: ten times the step);
 * Delete or Backspace remove it (null). Undefined: the key is not the editor's.
 */
export function regionKey(
  r: Region,
  key: string,
  mods: { shift?: boolean; alt?: boolean } = {},
): Region | null | undefined {
  if (key === 'Delete' || key === 'Backspace') return null;
  const arrow = ARROWS[key];
  if (!arrow) return undefined;
  const step = mods.alt ? STEP * 10 : STEP;
  const [dx, dy] = arrow;
  if (mods.shift) return normaliseRegion({ ...r, width: r.width + dx * step, height: r.height + dy * step });
  return normaliseRegion({ ...r, x: r.x + dx * step, y: r.y + dy * step });
}

/** The label a box is sent with: its own, else "Region n". */
export function labelled(regions: readonly Region[]): Region[] {
  return regions.map((r, i) => ({ ...r, label: r.label.trim() || `Region ${i + 1}` }));
}

const boxStyle = (r: Region) => ({
  left: `${r.x * 100}%`,
  top: `${r.y * 100}%`,
  width: `${r.width * 100}%`,
  height: `${r.height * 100}%`,
});

/** Boxes drawn over an image (decided frames, the history, the compare view): read only. */
export function RegionBoxes({ regions }: { readonly regions: readonly Region[] }) {
  return regions.map((r, i) => (
    <div key={i} className="region-box" data-testid="region-box" style={boxStyle(r)}>
      <span className="region-label">{r.label || `Region ${i + 1}`}</span>
    </div>
  ));
}

/** An image at its own proportions with boxes drawn over it. */
export function RegionFigure({
  src,
  alt,
  regions,
}: {
  readonly src: string | null;
  readonly alt: string;
  readonly regions: readonly Region[];
}) {
  return (
    <div className="region-figure">
      {src ? <img src={src} alt={alt} /> : <span className="thumb-placeholder" />}
      <RegionBoxes regions={regions} />
    </div>
  );
}

export interface RegionEditorProps {
  readonly regions: readonly Region[];
  readonly onChange: (regions: Region[]) => void;
  /** Drawing mode: a drag on the image draws a box (otherwise it pans). */
  readonly drawing: boolean;
}

/**
 * Boxes over the frame, editable: in drawing mode a drag draws one; each box is focusable, the arrow
 * keys move it, Shift+arrows resize it, Delete removes it. Coordinates are fractions of the image.
 */
export function RegionEditor({ regions, onChange, drawing }: RegionEditorProps) {
  const layer = useRef<HTMLDivElement>(null);
  const start = useRef<{ x: number; y: number } | null>(null);
  const [draft, setDraft] = useState<Region | null>(null);
  const at = (e: PointerEvent) => {
    const box = layer.current!.getBoundingClientRect();
    return { x: (e.clientX - box.left) / box.width, y: (e.clientY - box.top) / box.height };
  };
  const pointer = drawing
    ? {
        onPointerDown: (e: PointerEvent<HTMLDivElement>) => {
          if (e.button !== 0 || (e.target as HTMLElement).closest('.region-edit')) return;
          e.stopPropagation();
          e.currentTarget.setPointerCapture?.(e.pointerId);
          start.current = at(e);
        },
        onPointerMove: (e: PointerEvent<HTMLDivElement>) => {
          if (!start.current) return;
          e.stopPropagation();
          setDraft(regionBetween(start.current, at(e)));
        },
        onPointerUp: (e: PointerEvent<HTMLDivElement>) => {
          if (!start.current) return;
          e.stopPropagation();
          const drawn = regionBetween(start.current, at(e));
          start.current = null;
          setDraft(null);
          // A click is not a box.
          if (drawn.width > MIN_SIZE && drawn.height > MIN_SIZE) onChange([...regions, drawn]);
        },
      }
    : {};
  const onKeyDown = (index: number) => (e: KeyboardEvent<HTMLDivElement>) => {
    const next = regionKey(regions[index]!, e.key, { shift: e.shiftKey, alt: e.altKey });
    if (next === undefined) return;
    e.preventDefault();
    e.stopPropagation();
    onChange(next === null ? regions.filter((_, i) => i !== index) : regions.map((r, i) => (i === index ? next : r)));
  };
  return (
    <div ref={layer} className={drawing ? 'region-layer drawing' : 'region-layer'} {...pointer}>
      {regions.map((r, i) => (
        <div
          key={i}
          className="region-box region-edit"
          data-testid="region-box"
          style={boxStyle(r)}
          tabIndex={0}
          role="group"
          aria-label={`Region ${i + 1}${r.label ? `: ${r.label}` : ''}`}
          onKeyDown={onKeyDown(i)}
        >
          <span className="region-label">{r.label || `Region ${i + 1}`}</span>
        </div>
      ))}
      {draft && <div className="region-box region-draft" style={boxStyle(draft)} />}
    </div>
  );
}

/** The boxes as a list: a label field and a Remove button each, and "Add region" for the keyboard. */
export function RegionList({
  regions,
  onChange,
}: {
  readonly regions: readonly Region[];
  readonly onChange: (regions: Region[]) => void;
}) {
  return (
    <section className="region-list" aria-label="Regions">
      <div className="region-list-head">
        <h3>Regions</h3>
        <Button size="sm" onPress={() => onChange([...regions, normaliseRegion({ ...NEW_BOX, label: '' })])}>
          Add region
        </Button>
      </div>
      {regions.length > 0 && (
        <ol>
          {regions.map((r, i) => (
            <li key={i}>
              <TextField
                label={`Label of region ${i + 1}`}
                value={r.label}
                maxLength={200}
                placeholder={`Region ${i + 1}`}
                onChange={(label) => onChange(regions.map((x, j) => (j === i ? { ...x, label } : x)))}
              />
              <Button
                size="sm"
                variant="ghost"
                aria-label={`Remove region ${i + 1}`}
                onPress={() => onChange(regions.filter((_, j) => j !== i))}
              >
                Remove
              </Button>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
