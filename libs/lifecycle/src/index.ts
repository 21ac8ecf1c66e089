// A frame's media after its decision: retention purges, erasure requests, and verify/repair of
// rows against stored objects. Writes made while an erasure runs are refused by the media guard
// (libs/submissions), which this lib relies on.
export * from './media-purge';
export * from './retention.service';
export * from './erasure.service';
export * from './media-verify.service';
export * from './media-repair.service';
