import type { Engine } from './engine';

// Placeholder: the rgw engine is written in its own change (see engine.ts for the interface).
export const rgw: Engine = {
  name: 'rgw',
  packages: [],
  requires: [],
  ports: {},
  async start() {
    throw new Error('[engines] rgw is not implemented yet');
  },
  async ready() {
    return false;
  },
  env() {
    return {};
  },
};
