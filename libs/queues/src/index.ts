export * from './registry';
export * from './producer';
export * from './connection';
export * from './worker';
export * from './review-changes';
