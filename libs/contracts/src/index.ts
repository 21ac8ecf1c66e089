export * from './values';
export * from './schemas';
export * from './openapi';
export * from './review';
