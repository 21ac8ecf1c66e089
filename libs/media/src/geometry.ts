import type { VariantSpec } from '@framedesk/config';

export interface Size {
  readonly width: number;
  readonly height: number;
}

const scaled = (side: number, scale: number) => Math.max(1, Math.round(side * scale));

/**
 * The exact output size of a variant of an image of `source` size (DESIGN.md §5). Presets and
 * `wNNN`/`hNNN` keep the aspect ratio and never enlarge; `WxH` is a cover crop of exactly W×H.
 */
export function variantSize(spec: VariantSpec, source: Size): Size {
  switch (spec.kind) {
    case 'original':
      return { width: source.width, height: source.height };
    case 'fit': {
      const scale = Math.min(spec.width / source.width, spec.height / source.height, 1);
      return { width: scaled(source.width, scale), height: scaled(source.height, scale) };
    }
    case 'width': {
      const scale = Math.min(spec.width / source.width, 1);
      return { width: scaled(source.width, scale), height: scaled(source.height, scale) };
    }
    case 'height': {
      const scale = Math.min(spec.height / source.height, 1);
      return { width: scaled(source.width, scale), height: scaled(source.height, scale) };
    }
    case 'cover':
      return { width: spec.width, height: spec.height };
  }
}
