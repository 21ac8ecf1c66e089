// Apps depend only on libs; libs never on apps. Read from Nx's own project graph.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

it('has apps depending only on libs, and libs never on apps', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'framedesk-graph-'));
  try {
    const file = join(dir, 'graph.json');
    await promisify(execFile)(
      process.execPath,
      [join(root, 'node_modules/nx/dist/bin/nx.js'), 'graph', `--file=${file}`],
      {
        cwd: root,
        env: { ...process.env, NX_DAEMON: 'false' },
      },
    );
    const { graph } = JSON.parse(await readFile(file, 'utf8')) as {
      graph: {
        nodes: Record<string, { type: string; data: { root: string } }>;
        dependencies: Record<string, { target: string }[]>;
      };
    };
    const kind = (name: string) => graph.nodes[name]?.data.root.split('/')[0];
    const apps = Object.keys(graph.nodes).filter((n) => kind(n) === 'apps');
    expect(apps.sort()).toEqual(['api', 'cli', 'workbench', 'worker']);
    const edges = Object.entries(graph.dependencies).flatMap(([source, deps]) =>
      deps.filter((d) => graph.nodes[d.target]).map((d) => [source, d.target] as const),
    );
    expect(edges.length).toBeGreaterThan(10);
    for (const [source, target] of edges) {
      expect(kind(target), `${source} -> ${target}`).toBe('libs');
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
