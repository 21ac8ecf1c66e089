/**
 * Image variant names (DESIGN.md §5): a preset, or a size rule `w640`, `h480` or `640x360`.
 */
export type VariantSpec =
  | { readonly name: string; readonly kind: 'original' }
  | { readonly name: string; readonly kind: 'fit'; readonly width: number; readonly height: number }
  | { readonly name: string; readonly kind: 'width'; readonly width: number }
  | { readonly name: string; readonly kind: 'height'; readonly height: number }
  | { readonly name: string; readonly kind: 'cover'; readonly width: number; readonly height: number };

export const VARIANT_PRESETS: Readonly<Record<string, VariantSpec>> = {
  public: { name: 'public', kind: 'original' },
  thumbnail: { name: 'thumbnail', kind: 'fit', width: 256, height: 256 },
  preview: { name: 'preview', kind: 'fit', width: 1024, height: 1024 },
};

/** Sharp's and Cloudflare's practical bound on one side. */
export const MAX_VARIANT_SIDE = 12_000;

const side = (digits: string): number | null => {
  const n = Number(digits);
  return n >= 1 && n <= MAX_VARIANT_SIDE ? n : null;
};

export function parseVariantName(name: string): VariantSpec | null {
  const preset = VARIANT_PRESETS[name];
  if (preset) return preset;
  let match = /^w([1-9]\d{0,4})$/.exec(name);
  if (match) {
    const width = side(match[1]!);
    return width ? { name, kind: 'width', width } : null;
  }
  match = /^h([1-9]\d{0,4})$/.exec(name);
  if (match) {
    const height = side(match[1]!);
    return height ? { name, kind: 'height', height } : null;
  }
  match = /^([1-9]\d{0,4})x([1-9]\d{0,4})$/.exec(name);
  if (match) {
    const width = side(match[1]!);
    const height = side(match[2]!);
    return width && height ? { name, kind: 'cover', width, height } : null;
  }
  return null;
}
