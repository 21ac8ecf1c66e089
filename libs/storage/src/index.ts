export * from './storage';
export * from './fs.storage';
export * from './s3.storage';
export * from './create-storage';
export * from './keys';
export * from './tus-store';
export * from './unavailable';
export * from './storage-problem';
