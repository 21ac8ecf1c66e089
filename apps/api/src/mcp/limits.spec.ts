import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '@framedesk/domain';
import { boundedErrors, jsonBytesOver, valueBudget } from './limits';

const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('jsonBytesOver', () => {
  it('agrees with the size of JSON.stringify at the limit and one byte under it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const bytes = size(value);
        expect(jsonBytesOver(value, bytes)).toBe(false);
        if (bytes > 0) expect(jsonBytesOver(value, bytes - 1)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('stops at the limit: five million elements are over 16 KiB without being walked', () => {
    const zones = new Array<number>(5_000_000).fill(0);
    expect(jsonBytesOver({ click_zones: zones }, 16_384)).toBe(true);
    expect(jsonBytesOver({ title: 'x'.repeat(20_000) }, 16_384)).toBe(true);
  });
});

describe('valueBudget', () => {
  const check = (text: string) => () => valueBudget(100, 3)({} as never, null, Buffer.from(text));

  it('counts braces, brackets and commas before parsing: 100 per call, 300 for a batch', () => {
    expect(check(`{"a":[${'0,'.repeat(98)}0]}`)).not.toThrow();
    expect(check(`{"a":[${'0,'.repeat(99)}0]}`)).toThrow(DomainError);
    expect(check(` [{"a":[${'0,'.repeat(290)}0]}]`)).not.toThrow();
    expect(check(`[{"a":[${'0,'.repeat(298)}0]}]`)).toThrow(/MCP_BATCH_MAX/);
    // A base64 image holds none of them, whatever its length.
    expect(check(`{"image_base64":"${'QUJD'.repeat(100_000)}"}`)).not.toThrow();
  });
});

describe('boundedErrors', () => {
  it('keeps 20 errors and counts the rest', () => {
    const errors = Array.from({ length: 25 }, (_, i) => ({ pointer: `/${i}`, detail: 'x' }));
    expect(boundedErrors(errors)).toHaveLength(21);
    expect(boundedErrors(errors)[20]).toEqual({ pointer: '/', detail: 'and 5 more errors' });
    expect(boundedErrors(errors.slice(0, 20))).toHaveLength(20);
  });
});
