import { existsSync } from 'node:fs';
import { extname, isAbsolute, join, normalize, resolve } from 'node:path';
import express, { type RequestHandler, Router } from 'express';

const API_PREFIXES = ['/v1/', '/review/', '/media/', '/uploads/', '/healthz', '/readyz', '/metrics'];

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/**
 * The build's scripts and styles as gzip (`<file>.gz`, written beside them by the workbench's
 * build) to a browser that accepts it: a third of the bytes, compressed once at build time.
 */
function precompressed(dir: string): RequestHandler {
  return (req, res, next) => {
    const type = TYPES[extname(req.path)];
    if (!type || (req.method !== 'GET' && req.method !== 'HEAD') || !req.acceptsEncodings('gzip')) return next();
    const file = normalize(join(dir, req.path));
    if (!file.startsWith(dir) || !existsSync(`${file}.gz`)) return next();
    res.setHeader('Content-Type', type);
    res.setHeader('Content-Encoding', 'gzip');
    res.setHeader('Vary', 'Accept-Encoding');
    res.sendFile(`${file}.gz`, { maxAge: '1h' });
  };
}

/**
 * Production: the API serves the built workbench from one origin (no CORS). Client routes fall
 * back to index.html; API paths never do. Nothing is mounted when the build is absent, and
 * `onMissing` is told where it was looked for (an operator who skipped `npm run build` would
 * otherwise meet a bare 404 at /).
 */
export function workbenchRoutes(dist: string, workspaceRoot: string, onMissing?: (dir: string) => void): Router {
  const router = Router();
  const dir = isAbsolute(dist) ? dist : resolve(workspaceRoot, dist);
  const index = join(dir, 'index.html');
  if (!existsSync(index)) {
    onMissing?.(dir);
    return router;
  }
  router.use(precompressed(dir));
  router.use(
    express.static(dir, {
      index: false,
      maxAge: '1h',
      setHeaders: (res, path) => {
        if (path.endsWith('.html')) res.setHeader('Cache-Control', 'no-cache');
      },
    }),
  );
  router.get(/.*/, (req, res, next) => {
    if (API_PREFIXES.some((p) => req.path === p.replace(/\/$/, '') || req.path.startsWith(p)) || !req.accepts('html'))
      return next();
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
  return router;
}
