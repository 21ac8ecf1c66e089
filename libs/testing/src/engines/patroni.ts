import type { Engine } from './engine';

// Placeholder: the patroni engine is written in its own change (see engine.ts for the interface).
export const patroni: Engine = {
  name: 'patroni',
  packages: [],
  requires: [],
  ports: {},
  async start() {
    throw new Error('[engines] patroni is not implemented yet');
  },
  async ready() {
    return false;
  },
  env() {
    return {};
  },
};
