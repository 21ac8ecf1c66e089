export * from './database';
export * from './redis';
export * from './fixtures';
export * from './stack';
export * from './private-services';
export * from './s3';
export * from './browser';
export * from './otlp-receiver';
