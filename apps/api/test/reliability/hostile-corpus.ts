// Malformed and hostile requests to POST /v1/frame-submissions, byte for byte.
import { randomUUID } from 'node:crypto';
import { makePng, makePngBomb } from '@framedesk/testing';
import { multipartBody, requestBytes } from './raw-http';
import {
  type CorpusContext,
  deepJson,
  deepObject,
  type Expectation,
  form,
  type HostileCase,
  imagePart,
  meta,
  metadataPart,
  post,
} from './hostile-requests';

export type { CorpusContext, Expectation, HostileCase };

export function hostileCorpus(ctx: CorpusContext): HostileCase[] {
  const png = makePng(16, 16);
  const ok = (extra?: Record<string, unknown>) => metadataPart(meta(ctx, extra));
  const cases: HostileCase[] = [];
  const add = (
    name: string,
    bytes: Buffer | Buffer[],
    expect: Expectation = '4xx',
    mustFailIfAccepted = false,
    timeoutMs?: number,
  ) => cases.push({ name, bytes, expect, mustFailIfAccepted, ...(timeoutMs ? { timeoutMs } : {}) });

  // Broken multipart.
  add('no content-type', post(ctx, Buffer.from('hello'), undefined));
  add('json instead of multipart', post(ctx, Buffer.from(meta(ctx)), 'application/json'));
  add('multipart without boundary', post(ctx, multipartBody([ok(), imagePart(png)]).body, 'multipart/form-data'));
  {
    const { body } = multipartBody([ok(), imagePart(png)], 'realboundary');
    add('boundary mismatch', post(ctx, body, 'multipart/form-data; boundary=otherboundary'));
  }
  {
    const { body, contentType } = multipartBody([ok(), imagePart(png)]);
    add('no closing boundary', post(ctx, body.subarray(0, body.length - 40), contentType));
    add('body truncated mid-image', post(ctx, body.subarray(0, body.length - 200), contentType));
    add(
      'missing CRLF after part headers',
      post(ctx, Buffer.from(body.toString('latin1').replace('\r\n\r\n', '\r\n'), 'latin1'), contentType),
    );
    add(
      'LF-only line endings',
      post(ctx, Buffer.from(body.toString('latin1').replaceAll('\r\n', '\n'), 'latin1'), contentType),
    );
    // RFC 2046 caps boundaries at 70 characters; a lenient parser may still accept it.
    add('boundary longer than 70 chars', form(ctx, [ok(), imagePart(png)], 'b'.repeat(300)), '4xx-or-202');
    const big = multipartBody([ok(), imagePart(Buffer.concat([png, Buffer.alloc(2 * 1024 * 1024)]))]);
    const request = post(ctx, big.body, big.contentType);
    cases.push({
      name: 'client hangs up mid-body',
      bytes: request.subarray(0, Math.floor(request.length / 2)),
      expect: 'framing',
      hangUp: true,
    });
    cases.push({
      name: 'client hangs up mid-headers',
      bytes: request.subarray(0, 40),
      expect: 'framing',
      hangUp: true,
    });
  }
  add('empty multipart body', post(ctx, Buffer.alloc(0), 'multipart/form-data; boundary=x'));
  add('duplicate metadata parts', form(ctx, [ok(), ok({ title: 'second' }), imagePart(png)]));
  add('duplicate image parts', form(ctx, [ok(), imagePart(png), imagePart(png)]));
  add('metadata missing', form(ctx, [imagePart(png)]));
  add('image missing', form(ctx, [ok()]));
  add('unknown extra part', form(ctx, [ok(), imagePart(png), { name: 'extra', body: 'x' }]));
  add('huge part header (200 KB filename)', form(ctx, [ok(), imagePart(png, 'a'.repeat(200_000) + '.png')]));
  add(
    '1000 part header lines',
    form(ctx, [
      ok(),
      {
        name: 'image',
        body: png,
        rawHeaders: [
          'Content-Disposition: form-data; name="image"; filename="f.png"',
          'Content-Type: image/png',
          ...Array.from({ length: 1000 }, (_, i) => `X-Junk-${i}: ${'y'.repeat(50)}`),
        ].join('\r\n'),
      },
    ]),
  );
  add(
    'part without Content-Disposition',
    form(ctx, [ok(), { name: 'image', body: png, rawHeaders: 'Content-Type: image/png' }]),
  );
  add(
    '10,000 parts',
    form(ctx, [ok(), imagePart(png), ...Array.from({ length: 10_000 }, (_, i) => ({ name: `p${i}`, body: 'x' }))]),
  );
  add('10,000 file parts', form(ctx, [ok(), ...Array.from({ length: 10_000 }, () => imagePart(png))]));
  add(
    'video part (spec rule 1)',
    form(ctx, [ok(), { name: 'video', filename: 'v.mp4', contentType: 'video/mp4', body: Buffer.alloc(100) }]),
  );
  add(
    'media_upload_id field (spec rule 2)',
    form(ctx, [ok(), imagePart(png), { name: 'media_upload_id', body: 'upl_x' }]),
  );

  // Metadata: deep, huge, not UTF-8, prototype-polluting, not JSON.
  add(
    'metadata 10,000-deep arrays',
    form(ctx, [
      metadataPart(
        `{"agent_slug":"${ctx.agent}","channel_slug":"${ctx.channel}","date":"20260101","title":${deepJson(10_000)}}`,
      ),
      imagePart(png),
    ]),
  );
  add(
    'metadata 5,000-deep objects',
    form(ctx, [
      metadataPart(
        `{"agent_slug":"${ctx.agent}","channel_slug":"${ctx.channel}","date":"20260101","x":${deepObject(2_500)}}`,
      ),
      imagePart(png),
    ]),
  );
  add('metadata 1 MB', form(ctx, [ok({ caption: 'c'.repeat(1_000_000) }), imagePart(png)]));
  add(
    'metadata as a 1 MB file part',
    form(ctx, [
      {
        name: 'metadata',
        filename: 'm.json',
        contentType: 'application/json',
        body: meta(ctx, { caption: 'c'.repeat(1_000_000) }),
      },
      imagePart(png),
    ]),
  );
  add(
    'metadata not UTF-8',
    form(ctx, [
      metadataPart(
        Buffer.concat([
          Buffer.from(`{"agent_slug":"${ctx.agent}","channel_slug":"${ctx.channel}","date":"20260101","title":"`),
          Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0]),
          Buffer.from('"}'),
        ]),
      ),
      imagePart(png),
    ]),
  );
  add('metadata UTF-16', form(ctx, [metadataPart(Buffer.from(`\ufeff${meta(ctx)}`, 'utf16le')), imagePart(png)]));
  add(
    'metadata __proto__',
    form(ctx, [
      metadataPart(
        `{"agent_slug":"${ctx.agent}","channel_slug":"${ctx.channel}","date":"20260101","__proto__":{"isAdmin":true,"polluted":1}}`,
      ),
      imagePart(png),
    ]),
  );
  add(
    'metadata constructor.prototype',
    form(ctx, [
      metadataPart(
        `{"agent_slug":"${ctx.agent}","channel_slug":"${ctx.channel}","date":"20260101","constructor":{"prototype":{"polluted":1}}}`,
      ),
      imagePart(png),
    ]),
  );
  add(
    'metadata __proto__ in click zone',
    form(ctx, [
      metadataPart(
        `{"agent_slug":"${ctx.agent}","channel_slug":"${ctx.channel}","date":"20260101","click_zones":[{"__proto__":{"x":0},"y":0,"width":0.1,"height":0.1,"url":"https://e.x"}]}`,
      ),
      imagePart(png),
    ]),
  );
  add('metadata not JSON', form(ctx, [metadataPart('{agent_slug: bot'), imagePart(png)]));
  add('metadata JSON array', form(ctx, [metadataPart('[1,2,3]'), imagePart(png)]));
  add('metadata JSON null', form(ctx, [metadataPart('null'), imagePart(png)]));
  add(
    'metadata with duplicate keys',
    form(ctx, [
      metadataPart(
        `{"agent_slug":"${ctx.agent}","agent_slug":"someone-else","channel_slug":"${ctx.channel}","date":"20260101"}`,
      ),
      imagePart(png),
    ]),
  );
  add(
    'metadata 20,000 keys',
    form(ctx, [metadataPart(`{${Array.from({ length: 20_000 }, (_, i) => `"k${i}":1`).join(',')}}`), imagePart(png)]),
  );
  add('metadata impossible date', form(ctx, [ok({ date: '20260231' }), imagePart(png)]));
  add(
    'metadata javascript: click zone',
    form(ctx, [
      ok({ click_zones: [{ x: 0, y: 0, width: 0.5, height: 0.5, url: 'javascript:alert(1)' }] }),
      imagePart(png),
    ]),
  );
  add(
    'metadata 10,000 click zones',
    form(ctx, [
      ok({
        click_zones: Array.from({ length: 10_000 }, () => ({
          x: 0,
          y: 0,
          width: 0.1,
          height: 0.1,
          url: 'https://e.x',
        })),
      }),
      imagePart(png),
    ]),
  );

  // Unicode slugs.
  for (const slug of [
    'bøt',
    'ｂｏｔ',
    'b\u200bot',
    'bot\u202e',
    'bоt' /* Cyrillic о */,
    'BOT',
    'bot--x',
    '../bot',
    'bot\u0000',
    '🤖',
  ]) {
    add(
      `unicode agent slug ${JSON.stringify(slug)}`,
      form(ctx, [
        metadataPart(JSON.stringify({ agent_slug: slug, channel_slug: ctx.channel, date: '20260101' })),
        imagePart(png),
      ]),
    );
  }
  add(
    'unicode channel slug',
    form(ctx, [
      metadataPart(JSON.stringify({ agent_slug: ctx.agent, channel_slug: 'nеws', date: '20260101' })),
      imagePart(png),
    ]),
  );

  // Path traversal in filenames: the storage key never comes from them (may be accepted).
  for (const filename of [
    '../../../../etc/passwd',
    '..\\..\\..\\windows\\win.ini',
    '/etc/shadow',
    'a/../../b.png',
    '%2e%2e%2f%2e%2e%2fx.png',
    'nul\u0000.png',
    '.png',
    '',
  ]) {
    add(
      `path-traversal filename ${JSON.stringify(filename)}`,
      form(ctx, [ok(), imagePart(png, filename)]),
      '4xx-or-202',
    );
  }

  // Images that lie, explode or stop short.
  add(
    'PNG declaring 60000×60000 with 16×16 pixels',
    form(ctx, [ok(), imagePart(makePng(16, 16, { declared: { width: 60_000, height: 60_000 } }))]),
    '4xx-or-202',
    true,
  );
  // Decoders read what IHDR declares; surplus pixel data is ignored, so this may even be reviewable.
  add(
    'PNG declaring 1×1 with 64×64 pixels',
    form(ctx, [ok(), imagePart(makePng(64, 64, { declared: { width: 1, height: 1 } }))]),
    '4xx-or-202',
  );
  add('decompression bomb 20000×20000', form(ctx, [ok(), imagePart(makePngBomb())]), '4xx-or-202', true);
  add('zero-byte image', form(ctx, [ok(), imagePart(Buffer.alloc(0))]));
  add('truncated PNG (100 bytes)', form(ctx, [ok(), imagePart(makePng(64, 64).subarray(0, 100))]), '4xx-or-202', true);
  add('PNG signature only', form(ctx, [ok(), imagePart(png.subarray(0, 8))]), '4xx-or-202', true);
  add(
    'PNG signature then garbage',
    form(ctx, [ok(), imagePart(Buffer.concat([png.subarray(0, 8), Buffer.alloc(5000, 0x41)]))]),
    '4xx-or-202',
    true,
  );
  add(
    'GIF labelled image/png',
    form(ctx, [ok(), imagePart(Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'))]),
  );
  add('PNG labelled image/svg+xml', form(ctx, [ok(), imagePart(png, 'f.svg', 'image/svg+xml')]));
  add(
    'body over multipart_max_bytes (11 MB)',
    form(ctx, [ok(), imagePart(Buffer.concat([png, Buffer.alloc(11 * 1024 * 1024)]))]),
    '4xx',
  );

  // Headers.
  add(
    'idempotency key not a UUID',
    post(ctx, multipartBody([ok(), imagePart(png)]).body, undefined, { 'idempotency-key': 'not-a-uuid' }),
  );
  add(
    'idempotency key 10 KB',
    post(ctx, multipartBody([ok(), imagePart(png)]).body, undefined, { 'idempotency-key': 'x'.repeat(10_000) }),
  );
  add(
    'authorization garbage',
    requestBytes({
      path: '/v1/frame-submissions',
      headers: { authorization: 'Bearer \u00ff\u00fe', 'idempotency-key': randomUUID() },
      body: Buffer.from('x'),
    }),
  );
  add(
    'authorization basic',
    requestBytes({
      path: '/v1/frame-submissions',
      headers: { authorization: 'Basic YWRtaW46YWRtaW4=', 'idempotency-key': randomUUID() },
      body: Buffer.from('x'),
    }),
  );
  add(
    'content-length lies (says 1 MB, sends 10 bytes)',
    requestBytes({
      path: '/v1/frame-submissions',
      headers: {
        authorization: `Bearer ${ctx.key}`,
        'idempotency-key': randomUUID(),
        'content-type': 'multipart/form-data; boundary=x',
        'content-length': '1000000',
      },
      body: Buffer.from('--x\r\nabc\r\n'),
    }),
    'framing',
    false,
    75_000,
  );
  add(
    'malformed chunked encoding',
    requestBytes({
      path: '/v1/frame-submissions',
      headers: {
        authorization: `Bearer ${ctx.key}`,
        'idempotency-key': randomUUID(),
        'content-type': 'multipart/form-data; boundary=x',
        'transfer-encoding': 'chunked',
      },
      body: Buffer.from('zz\r\nhello\r\n0\r\n\r\n'),
      noContentLength: true,
    }),
    'framing',
  );
  add(
    'both content-length and chunked (smuggling)',
    requestBytes({
      path: '/v1/frame-submissions',
      headers: {
        authorization: `Bearer ${ctx.key}`,
        'content-type': 'multipart/form-data; boundary=x',
        'transfer-encoding': 'chunked',
        'content-length': '4',
      },
      body: Buffer.from('0\r\n\r\nGET /healthz HTTP/1.1\r\n\r\n'),
    }),
    'framing',
  );
  add(
    '64 KB header',
    requestBytes({
      path: '/v1/frame-submissions',
      headers: { authorization: `Bearer ${ctx.key}`, 'x-big': 'a'.repeat(64 * 1024) },
      body: Buffer.from('x'),
    }),
    'framing',
  );
  add(
    'path traversal in URL',
    requestBytes({
      method: 'GET',
      path: '/v1/frame-submissions/..%2f..%2f..%2fetc%2fpasswd',
      headers: { authorization: `Bearer ${ctx.key}` },
    }),
  );
  add(
    'unknown method',
    requestBytes({
      method: 'PROPFIND',
      path: '/v1/frame-submissions',
      headers: { authorization: `Bearer ${ctx.key}` },
    }),
    'framing',
  );
  return cases;
}
