// docs/api.md cannot go stale unnoticed: its error table is the catalog's, and its examples are tested.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG, FAILURE_CODES } from '@framedesk/domain';
import { docBlocks, DOCS_FILE } from './docs-walkthrough';

const markdown = readFileSync(DOCS_FILE, 'utf8');

describe('docs/api.md', () => {
  it('lists every error code of ERROR_CATALOG with its status, and no other', () => {
    const rows = [...markdown.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((m) => [m[2], Number(m[1])]);
    expect(Object.fromEntries(rows)).toEqual(
      Object.fromEntries(Object.entries(ERROR_CATALOG).map(([code, { status }]) => [code, status])),
    );
    expect(rows).toHaveLength(Object.keys(ERROR_CATALOG).length);
  });

  it('names every failure code', () => {
    for (const code of FAILURE_CODES) expect(markdown).toContain(`\`${code}\``);
  });

  it('has tested walkthroughs for images and videos, written against $FRAMEDESK_URL and $FRAMEDESK_API_KEY', () => {
    const blocks = docBlocks(markdown);
    expect(new Set(blocks.map((b) => b.tag))).toEqual(new Set(['', 'video']));
    const curls = blocks.flatMap((b) => b.source.split('\n')).filter((line) => /^\s*(\S+=\$\()?curl /.test(line));
    expect(curls.length).toBeGreaterThan(8);
    for (const line of curls) expect(line).toMatch(/\$FRAMEDESK_URL|\$UPLOAD_URL|\$TUS_URL/);
    const authorized = blocks
      .flatMap((b) => b.source.split('curl ').slice(1))
      .filter((c) => c.includes('$FRAMEDESK_URL'));
    for (const call of authorized) expect(call).toContain('Authorization: Bearer $FRAMEDESK_API_KEY');
    // The upload address carries its own credential; the API key must never go there.
    const uploads = blocks
      .flatMap((b) => b.source.split('curl ').slice(1))
      .filter((c) => /^[^\n]*\$(UPLOAD_URL|TUS_URL)/.test(c));
    expect(uploads.length).toBeGreaterThan(2);
    for (const call of uploads) expect(call.split('\n\n')[0]).not.toContain('FRAMEDESK_API_KEY');
  });
});
