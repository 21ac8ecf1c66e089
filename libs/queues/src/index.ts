export * from './registry';
export * from './producer';
export * from './connection';
export * from './worker';
export * from './redis-locker';
export * from './worker-status';
export * from './workers-overview';
