export * from './review.service';
export * from './review.views';
export * from './review-input';
export * from './similarity.service';
export * from './review-stats';
export * from './team-stats';
