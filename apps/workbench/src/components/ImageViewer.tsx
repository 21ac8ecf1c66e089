import { type KeyboardEvent, type PointerEvent, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { Region, SubmissionDetail } from '../api/types';
import { useKeyboard } from '../hooks/useKeyboard';
import { Button, Toggle } from '../ui';
import { RegionBoxes, RegionEditor } from './Regions';

/** How the frame is shown: fitted to the stage, or at a scale; panned by an offset from the centre (px). */
export interface View {
  readonly scale: number | 'fit';
  readonly x: number;
  readonly y: number;
}

export const FIT: View = { scale: 'fit', x: 0, y: 0 };
const MIN_SCALE = 0.1;
const MAX_SCALE = 16;
const STEP = 1.25;
const PAN = 40;

/** Zooms by `factor` keeping the stage point `at` (px from the stage's centre) where it is. */
export function zoomView(view: View, current: number, factor: number, at = { x: 0, y: 0 }): View {
  const next = Math.min(MAX_SCALE, Math.max(MIN_SCALE, current * factor));
  const k = next / current;
  return { scale: next, x: at.x - (at.x - view.x) * k, y: at.y - (at.y - view.y) * k };
}

function useSize<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  // Measured before the first paint: a frame first drawn for a 0×0 stage and then moved is a
  // layout shift (Lighthouse counted 0.08 CLS on the detail for it).
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setSize({ width: el.clientWidth, height: el.clientHeight });
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, size] as const;
}

/** Wheel zoom around the pointer (a native listener: React's wheel events cannot prevent scrolling). */
function useWheelZoom(
  ref: React.RefObject<HTMLDivElement | null>,
  onZoom: (factor: number, at: { x: number; y: number }) => void,
) {
  const latest = useRef(onZoom);
  useEffect(() => {
    latest.current = onZoom;
  });
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const box = el.getBoundingClientRect();
      const at = { x: e.clientX - box.left - box.width / 2, y: e.clientY - box.top - box.height / 2 };
      latest.current(Math.exp(-e.deltaY * 0.0015), at);
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, [ref]);
}

/** Click zones drawn over the frame, each with its label; a link to its URL. */
function Zones({ zones }: { readonly zones: SubmissionDetail['click_zones'] }) {
  return zones.map((zone, index) => (
    <a
      key={index}
      className="click-zone"
      data-testid="click-zone"
      href={zone.url}
      target="_blank"
      rel="noopener noreferrer"
      title={zone.url}
      aria-label={`${zone.label ?? `Zone ${index + 1}`}: ${zone.url}`}
      style={{
        left: `${zone.x * 100}%`,
        top: `${zone.y * 100}%`,
        width: `${zone.width * 100}%`,
        height: `${zone.height * 100}%`,
      }}
    >
      <span className="zone-label">{zone.label ?? `Zone ${index + 1}`}</span>
      <span className="zone-url">{zone.url}</span>
    </a>
  ));
}

export interface ImageViewerProps {
  readonly submission: SubmissionDetail;
  readonly zones: boolean;
  readonly onZones?: (on: boolean) => void;
  /** Boxes drawn over the frame: editable with `onRegions` (the Draw regions toggle), else read only. */
  readonly regions?: readonly Region[];
  readonly onRegions?: (regions: Region[]) => void;
}

/**
 * The frame: fitted, 1:1 or any zoom (wheel, + - 0, z), panned by dragging or the arrow keys,
 * with its click zones (c) drawn and labelled, and the regions of a rejection.
 */
export function ImageViewer({ submission, zones, onZones, regions = [], onRegions }: ImageViewerProps) {
  const [drawing, setDrawing] = useState(false);
  const [stageRef, stage] = useSize<HTMLDivElement>();
  const [view, setView] = useState<View>(FIT);
  const [natural, setNatural] = useState<{ width: number; height: number } | null>(
    submission.width && submission.height ? { width: submission.width, height: submission.height } : null,
  );
  const drag = useRef<{ x: number; y: number; vx: number; vy: number } | null>(null);
  const fit =
    natural && stage.width > 0 && stage.height > 0
      ? Math.min(stage.width / natural.width, stage.height / natural.height)
      : 1;
  const scale = view.scale === 'fit' ? fit : view.scale;
  const zoom = (factor: number, at?: { x: number; y: number }) => setView((v) => zoomView(v, scale, factor, at));
  const oneToOne = () => setView(view.scale === 1 ? FIT : { scale: 1, x: 0, y: 0 });
  useWheelZoom(stageRef, zoom);
  useKeyboard({
    z: oneToOne,
    '+': () => zoom(STEP),
    '=': () => zoom(STEP),
    '-': () => zoom(1 / STEP),
    '0': () => setView(FIT),
  });

  const pan = (dx: number, dy: number) => setView((v) => ({ scale: scale, x: v.x + dx, y: v.y + dy }));
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const moves: Record<string, [number, number]> = {
      ArrowLeft: [PAN, 0],
      ArrowRight: [-PAN, 0],
      ArrowUp: [0, PAN],
      ArrowDown: [0, -PAN],
    };
    const move = moves[e.key];
    if (!move) return;
    e.preventDefault();
    pan(...move);
  };
  const pointer = {
    onPointerDown: (e: PointerEvent<HTMLDivElement>) => {
      if ((e.target as HTMLElement).closest('a') || e.button !== 0) return;
      e.currentTarget.setPointerCapture(e.pointerId);
      drag.current = { x: e.clientX, y: e.clientY, vx: view.x, vy: view.y };
    },
    onPointerMove: (e: PointerEvent<HTMLDivElement>) => {
      const from = drag.current;
      if (!from) return;
      setView({ scale, x: from.vx + e.clientX - from.x, y: from.vy + e.clientY - from.y });
    },
    onPointerUp: () => (drag.current = null),
    onPointerCancel: () => (drag.current = null),
  };

  const box = natural ? { width: natural.width * scale, height: natural.height * scale } : { width: 480, height: 270 };
  const label =
    view.scale === 'fit'
      ? `Scale ${Math.round(scale * 100)}% (fit)`
      : scale === 1
        ? 'Scale 100% (1:1)'
        : `Scale ${Math.round(scale * 100)}%`;
  return (
    <div className="media viewer">
      <div className="viewer-tools" role="toolbar" aria-label="Zoom">
        <Toggle size="sm" isSelected={view.scale === 'fit'} onChange={() => setView(FIT)}>
          Fit
        </Toggle>
        <Toggle size="sm" isSelected={view.scale === 1} onChange={oneToOne}>
          1:1
        </Toggle>
        <Button size="sm" aria-label="Zoom out" onPress={() => zoom(1 / STEP)}>
          −
        </Button>
        <Button size="sm" aria-label="Zoom in" onPress={() => zoom(STEP)}>
          +
        </Button>
        <span className="scale" aria-live="polite">
          {label}
        </span>
        {onZones && (
          <Toggle size="sm" className="zones-toggle" isSelected={zones} onChange={onZones}>
            Click zones
          </Toggle>
        )}
        {onRegions && (
          <Toggle size="sm" className="draw-toggle" isSelected={drawing} onChange={setDrawing}>
            Draw regions
          </Toggle>
        )}
        {natural && <span className="hint dims">{`${natural.width}×${natural.height}`}</span>}
      </div>
      <div
        ref={stageRef}
        className="stage"
        tabIndex={0}
        role="region"
        aria-label="Frame viewer: drag or use the arrow keys to pan, the wheel or + and - to zoom"
        onKeyDown={onKeyDown}
        {...pointer}
      >
        <div
          className={scale > 1 ? 'frame pixelated' : 'frame'}
          data-testid="frame"
          style={{
            ...box,
            left: stage.width / 2 - box.width / 2 + view.x,
            top: stage.height / 2 - box.height / 2 + view.y,
          }}
        >
          {submission.image_url ? (
            <img
              src={submission.image_url}
              alt={submission.title ?? submission.id}
              draggable={false}
              onLoad={(e) => setNatural({ width: e.currentTarget.naturalWidth, height: e.currentTarget.naturalHeight })}
            />
          ) : (
            <div className="frame-missing">No image variant yet</div>
          )}
          {zones && <Zones zones={submission.click_zones} />}
          {onRegions ? (
            <RegionEditor regions={regions} onChange={onRegions} drawing={drawing} />
          ) : (
            <RegionBoxes regions={regions} />
          )}
        </div>
      </div>
    </div>
  );
}
