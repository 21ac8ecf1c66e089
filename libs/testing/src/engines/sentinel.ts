import type { Engine } from './engine';

// Placeholder: the sentinel engine is written in its own change (see engine.ts for the interface).
export const sentinel: Engine = {
  name: 'sentinel',
  packages: [],
  requires: [],
  ports: {},
  async start() {
    throw new Error('[engines] sentinel is not implemented yet');
  },
  async ready() {
    return false;
  },
  env() {
    return {};
  },
};
