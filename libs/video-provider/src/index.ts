export * from './video-provider';
export * from './local.provider';
