export * from './submissions.service';
export * from './submission-views';
export * from './validation';
export * from './cursor';
export * from './video.service';
export * from './video-upload.service';
export * from './processing.service';
export * from './reconciler.service';
