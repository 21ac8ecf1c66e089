export * from './api-keys.service';
export * from './passwords';
export * from './reviewers.service';
