import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import express, { Router } from 'express';

const API_PREFIXES = ['/v1/', '/review/', '/media/', '/uploads/', '/healthz', '/readyz', '/metrics'];

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
