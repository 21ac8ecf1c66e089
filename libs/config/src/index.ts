export * from './project-config.schema';
export * from './project-config';
export * from './variants';
export * from './settings';
export * from './validation';
export * from './trust-proxy';
export * from './group-mapping';
export * from './startup';
