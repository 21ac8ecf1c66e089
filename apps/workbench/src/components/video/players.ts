// The one chunk the workbench loads on demand for video: the player and the compare view share it
// (one file gzips smaller than two, and the JavaScript budget counts every file; docs/workbench.md).
export { default as VideoCompare } from './VideoCompare';
export { default as VideoPlayer } from './VideoPlayer';
