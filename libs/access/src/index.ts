export * from './api-keys.service';
export * from './passwords';
export * from './reviewers.service';
export * from './reviewer-sessions.service';
export * from './rate-limiter';
export * from './media-urls';
export * from './login-throttle';
export * from './semaphore';
