export * from './sample-set';
export * from './render';
export * from './seed';
