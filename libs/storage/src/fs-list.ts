import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ListedObject, ListOptions, ListPage } from './storage';

/** S3's largest page, and the default. */
export const MAX_LIST_PAGE = 1000;

/**
 * Keys under `dir` (whose own key is `dirKey`, '' for the bucket) in plain string order, as S3
 * lists them: a directory sorts as its name plus `/`, so `a.png` comes before `a/x`. Directories
 * that cannot hold a key after `after` or under `prefix` are not read. Entries starting with a
 * dot in the bucket itself (`.tmp`, unfinished writes) are no keys of ours.
 */
async function* keysUnder(dir: string, dirKey: string, prefix: string, after: string): AsyncGenerator<string> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const named = entries
    .filter((e) => (e.isDirectory() || e.isFile()) && !(dirKey === '' && e.name.startsWith('.')))
    .map((e) => ({ entry: e, sortKey: `${dirKey}${e.name}${e.isDirectory() ? '/' : ''}` }))
    .sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
  for (const { entry, sortKey } of named) {
    if (entry.isDirectory()) {
      // Every key inside starts with sortKey: skip when none can match the prefix or follow `after`.
      const overlapsPrefix = sortKey.startsWith(prefix) || prefix.startsWith(sortKey);
      const allBefore = after !== '' && sortKey < after && !after.startsWith(sortKey);
      if (overlapsPrefix && !allBefore) yield* keysUnder(join(dir, entry.name), sortKey, prefix, after);
    } else if (sortKey.startsWith(prefix) && sortKey > after) {
      yield sortKey;
    }
  }
}

/** One page of `listObjects` for the fs driver; the cursor is the last key returned. */
export async function listFsBucket(bucketDir: string, options: ListOptions): Promise<ListPage> {
  const limit = Math.min(MAX_LIST_PAGE, Math.max(1, options.limit ?? MAX_LIST_PAGE));
  const objects: ListedObject[] = [];
  for await (const key of keysUnder(bucketDir, '', options.prefix, options.cursor ?? '')) {
    const info = await stat(join(bucketDir, key)).catch(() => null);
    if (info) objects.push({ key, byteSize: info.size, lastModified: info.mtime });
    if (objects.length >= limit) return { objects, cursor: key };
  }
  return { objects, cursor: null };
}
