export * from './storage';
export * from './fs.storage';
export * from './keys';
