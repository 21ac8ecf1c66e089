export * from './review.service';
export * from './review.views';
export * from './review-input';
export * from './similarity.service';
export * from './review-stats';
export * from './feedback-input';
export * from './channel-reasons';
export * from './audit-export';
