import type sharpModule from 'sharp';

export type Sharp = typeof sharpModule;

let loading: Promise<Sharp> | undefined;
let threads: number | undefined;

/**
 * sharp, loaded on first use: libvips costs tens of MB of native memory, and processes that never
 * touch pixels (the API, which only imports this lib for magic-byte checks) should not carry it.
 */
export function loadSharp(): Promise<Sharp> {
  loading ??= import('sharp').then(({ default: sharp }) => {
    applySettings(sharp);
    return sharp;
  });
  return loading;
}

/** Records libvips' thread count; applied when sharp loads, or at once if it already has. */
export function setSharpThreads(count: number): void {
  threads = count;
  void loading?.then(applySettings);
}

function applySettings(sharp: Sharp): void {
  if (threads !== undefined) sharp.concurrency(threads);
  // The cache only helps repeated reads of one file, which the pipeline never does.
  sharp.cache(false);
}
