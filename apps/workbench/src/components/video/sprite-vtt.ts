/** One cue of a thumbnail sprite's WebVTT track: a time range and the sprite's region for it. */
export interface SpriteCue {
  readonly start: number;
  readonly end: number;
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

/** "00:01:02.500" or "01:02.500" → seconds. */
function seconds(stamp: string): number {
  const parts = stamp.trim().split(':').map(Number);
  return parts.reduce((total, n) => total * 60 + n, 0);
}

const TIMING = /^\s*([\d:.]+)\s+-->\s+([\d:.]+)/;
const XYWH = /#xywh=(\d+),(\d+),(\d+),(\d+)\s*$/;

/**
 * The cues of a sprite track (`HH:MM:SS.mmm --> HH:MM:SS.mmm` then `sprite.webp#xywh=x,y,w,h`), in
 * order; lines that are not such a cue (the header, blank lines, notes) are skipped.
 */
export function parseSpriteVtt(text: string): SpriteCue[] {
  const lines = text.split(/\r?\n/);
  const cues: SpriteCue[] = [];
  for (let i = 0; i < lines.length; i++) {
    const timing = TIMING.exec(lines[i]!);
    if (!timing) continue;
    const region = XYWH.exec(lines[i + 1] ?? '');
    if (!region) continue;
    const [x, y, w, h] = region.slice(1).map(Number) as [number, number, number, number];
    cues.push({ start: seconds(timing[1]!), end: seconds(timing[2]!), x, y, w, h });
    i++;
  }
  return cues;
}

/** The cue showing `time` (the last one past the end), or null without cues. */
export function cueAt(cues: readonly SpriteCue[], time: number): SpriteCue | null {
  if (cues.length === 0) return null;
  return cues.find((c) => time >= c.start && time < c.end) ?? (time < cues[0]!.start ? cues[0]! : cues.at(-1)!);
}
