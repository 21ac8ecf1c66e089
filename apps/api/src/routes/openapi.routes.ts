import { createRequire } from 'node:module';
import { Router } from 'express';

type Json = Record<string, unknown>;

/** Redoc's standalone build, served from the installed package: no CDN, works offline. */
export const REDOC_BUNDLE = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
export const REDOC_SCRIPT_PATH = '/docs/redoc.standalone.js';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The reference page: Redoc renders `/v1/openapi.json` in the browser (no inline script, so the CSP stays strict). */
function docsPage(title: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)}</title><link rel="icon" href="data:,"></head>
<body>
<redoc spec-url="/v1/openapi.json" hide-download-button="false" expand-responses="200,201,202" required-props-first="true"></redoc>
<script src="${REDOC_SCRIPT_PATH}"></script>
</body>
</html>`;
}

/** `/v1/openapi.json` and `/docs`: public, no authentication. */
export function openApiRoutes(document: Json): Router {
  const router = Router();
  const page = docsPage(String((document['info'] as Json)['title']));
  router.get('/v1/openapi.json', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.json(document);
  });
  router.get('/docs', (_req, res) => {
    // Redoc runs its search index in a Web Worker it creates from a blob: URL.
    res.setHeader(
      'Content-Security-Policy',
      String(res.getHeader('Content-Security-Policy') ?? "default-src 'self'").concat(";worker-src 'self' blob:"),
    );
    res.type('html').send(page);
  });
  router.get(REDOC_SCRIPT_PATH, (_req, res) => {
    res.sendFile(REDOC_BUNDLE, { maxAge: '1h' });
  });
  return router;
}
