import { Router } from 'express';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const code = (text: string) => escape(text).replace(/`([^`]+)`/g, '<code>$1</code>');

type Json = Record<string, unknown>;

/** One operation: summary, parameters, body and responses, with their schemas. */
function renderOperation(method: string, path: string, op: Json): string {
  const params = ((op['parameters'] as Json[] | undefined) ?? [])
    .map(
      (p) =>
        `<li><code>${escape(String(p['name']))}</code> (${escape(String(p['in']))}${p['required'] ? ', required' : ''}) ${code(String(p['description'] ?? ''))}</li>`,
    )
    .join('');
  const body = op['requestBody']
    ? `<h4>Request body</h4><pre>${escape(JSON.stringify((op['requestBody'] as Json)['content'], null, 2))}</pre>`
    : '';
  const responses = Object.entries((op['responses'] as Record<string, Json>) ?? {})
    .map(([status, r]) => {
      const content = r['content'] as Record<string, { schema?: { $ref?: string } }> | undefined;
      const refs = Object.entries(content ?? {}).map(([type, c]) => {
        const name = c.schema?.$ref?.split('/').pop();
        return `${escape(type)}${name ? ` → <a href="#schema-${escape(name)}">${escape(name)}</a>` : ''}`;
      });
      return `<tr><td>${escape(status)}</td><td>${code(String(r['description'] ?? ''))}</td><td>${refs.join('<br>')}</td></tr>`;
    })
    .join('');
  return `<section class="op" id="${escape(String(op['operationId'] ?? ''))}">
<h3><span class="method">${escape(method.toUpperCase())}</span> <code>${escape(path)}</code></h3>
<p><strong>${code(String(op['summary'] ?? ''))}</strong></p>${op['description'] ? `<p>${code(String(op['description']))}</p>` : ''}
${params ? `<h4>Parameters</h4><ul>${params}</ul>` : ''}${body}
<h4>Responses</h4><table><tr><th>Status</th><th>Meaning</th><th>Body</th></tr>${responses}</table></section>`;
}

/** The reference page: rendered on the server from the document, self-contained (no scripts, no CDN). */
export function renderDocsPage(document: Json): string {
  const info = document['info'] as Json;
  const paths = document['paths'] as Record<string, Record<string, Json>>;
  const schemas = (document['components'] as { schemas: Record<string, Json> }).schemas;
  const operations = Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => renderOperation(method, path, op)),
  );
  const schemaSections = Object.entries(schemas)
    .map(
      ([name, schema]) =>
        `<section id="schema-${escape(name)}"><h3>${escape(name)}</h3><pre>${escape(JSON.stringify(schema, null, 2))}</pre></section>`,
    )
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(String(info['title']))}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
code,pre{font-family:ui-monospace,monospace;font-size:13px}pre{background:#f5f5f5;padding:.75rem;overflow:auto;border-radius:4px}
.method{background:#1b5e20;color:#fff;padding:0 .4rem;border-radius:3px;font-size:13px}table{border-collapse:collapse;width:100%}
td,th{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}.op{border-top:1px solid #ccc;margin-top:1.5rem}</style></head>
<body><h1>${escape(String(info['title']))} <small>${escape(String(info['version']))}</small></h1><p>${code(String(info['description'] ?? ''))}</p>
<p>Machine-readable: <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI ${escape(String(document['openapi']))}). Authenticate with <code>Authorization: Bearer &lt;API key&gt;</code>.</p>
<h2>Operations</h2>${operations.join('\n')}<h2>Schemas</h2>${schemaSections}</body></html>`;
}

/** `/v1/openapi.json` and `/docs`: public, no authentication. */
export function openApiRoutes(document: Json): Router {
  const router = Router();
  const page = renderDocsPage(document);
  router.get('/v1/openapi.json', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.json(document);
  });
  router.get('/docs', (_req, res) => {
    res.type('html').send(page);
  });
  return router;
}
