/** Small statistics for benchmark figures: no library, no surprises. */

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  // Nearest rank: p99 of 100 samples is the 99th, not an interpolation past the data.
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export const median = (values: readonly number[]): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** One figure over repetitions: the median and the range it came from. */
export interface Figure {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly values: readonly number[];
}

export function figure(values: readonly number[]): Figure {
  const finite = values.filter((v) => Number.isFinite(v));
  return {
    median: median(finite),
    min: finite.length ? Math.min(...finite) : Number.NaN,
    max: finite.length ? Math.max(...finite) : Number.NaN,
    values: [...values],
  };
}

/** Spread as ± half the range relative to the median, e.g. "±4%". */
export function spreadText(f: Figure): string {
  if (f.values.length < 2 || !Number.isFinite(f.median) || f.median === 0) return '—';
  return `±${(((f.max - f.min) / 2 / Math.abs(f.median)) * 100).toFixed(0)}%`;
}

export function formatNumber(value: number, digits?: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  const d = digits ?? (Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2);
  return value.toFixed(d);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
