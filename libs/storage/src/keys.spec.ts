import { describe, expect, it } from 'vitest';
import { isOwnStorageKey, storageKeys } from './keys';

describe('isOwnStorageKey', () => {
  it('claims every key storageKeys makes', () => {
    expect(isOwnStorageKey(storageKeys.original('sub_abc', 'png'))).toBe(true);
    expect(isOwnStorageKey(storageKeys.variant('sub_abc', 'thumbnail'))).toBe(true);
    expect(isOwnStorageKey(storageKeys.poster('sub_abc'))).toBe(true);
  });

  it("leaves a resumable upload's objects alone (bare upload ids in the same bucket)", () => {
    for (const key of ['upl_4kTQe56eGJGkUpu1noq11T', 'upl_4kTQe56eGJGkUpu1noq11T.info', 'upl_x.part'])
      expect(isOwnStorageKey(key)).toBe(false);
  });
});
