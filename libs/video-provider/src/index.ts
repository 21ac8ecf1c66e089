export * from './video-provider';
export * from './local.provider';
export * from './cloudflare.provider';
export * from './webhook-signature';
export * from './video-provider.factory';
export * from './cloudflare.fake';
