import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = import.meta.dirname;
const UI = join(SRC, 'ui');

/** Every .tsx/.ts file under src/, but the design system's own folder and the tests. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return path === UI ? [] : sources(path);
    return /\.tsx?$/.test(name) && !/\.spec\.tsx?$/.test(name) ? [path] : [];
  });
}

const RAW: readonly [RegExp, string][] = [
  [/<select[\s>]/, 'a raw <select> (use Select from src/ui)'],
  [/<input[^>]*type=["{']*date/, 'a native date input (use DateRangePicker from src/ui)'],
  [/<button[\s>]/, 'a raw <button> (use Button from src/ui)'],
  [/<input[^>]*type=["{']*checkbox/, 'a raw checkbox (use Checkbox from src/ui)'],
];

/** Offences of one file's text, as "path:line: what". */
export function rawControls(path: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, i) =>
      RAW.filter(([pattern]) => pattern.test(line)).map(([, what]) => `${relative(SRC, path)}:${i + 1}: ${what}`),
    );
}

describe('the design system is used everywhere', () => {
  it('finds a raw control when there is one (the check can fail)', () => {
    expect(rawControls(join(SRC, 'x.tsx'), '  <button type="button">Go</button>\n<input type="date" />')).toHaveLength(
      2,
    );
    expect(rawControls(join(SRC, 'x.tsx'), '<Button variant="primary">Go</Button>')).toEqual([]);
  });

  it('has no raw <select>, native date input, raw <button> or checkbox outside src/ui', () => {
    const files = sources(SRC);
    expect(files.length).toBeGreaterThan(20);
    expect(files.flatMap((f) => rawControls(f, readFileSync(f, 'utf8')))).toEqual([]);
  });
});
