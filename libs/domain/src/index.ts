export * from './status-machine';
export * from './errors';
export * from './ids';
export * from './values';
export * from './retention';
export * from './error-chain';
export * from './connection-errors';
