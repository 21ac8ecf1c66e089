export * from './schemas';
export * from './openapi';
