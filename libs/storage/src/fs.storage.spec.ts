import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsStorage } from './fs.storage';

describe('fs storage directories', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'fd-fs-dirs-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('creates a bucket and nested key directories on the first write', async () => {
    const storage = createFsStorage(root);
    await storage.put('media', 'a/b/c/frame.png', Buffer.from('one'), { contentType: 'image/png' });
    expect(await readFile(join(root, 'media/a/b/c/frame.png'), 'utf8')).toBe('one');
  });

  it('writes again after its directories were removed behind its back, stream bodies included', async () => {
    const storage = createFsStorage(root);
    await storage.put('media', 'x/first.png', Buffer.from('first'), { contentType: 'image/png' });
    await rm(join(root, 'media'), { recursive: true, force: true });
    const stored = await storage.put('media', 'x/second.png', Readable.from([Buffer.from('sec'), Buffer.from('ond')]), {
      contentType: 'image/png',
    });
    expect(stored.byteSize).toBe(6);
    expect(await readFile(join(root, 'media/x/second.png'), 'utf8')).toBe('second');
    expect(await readdir(join(root, 'media/.tmp'))).toEqual([]);
  });
});
