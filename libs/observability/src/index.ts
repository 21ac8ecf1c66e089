export * from './logger';
export * from './metrics';
export * from './shutdown';
export * from './tracing';
export * from './pipeline-metrics';
export * from './cluster-metrics';
export * from './redis-outage-metrics';
export * from './replica-metrics';
