export * from './policy-file';
export * from './cel-environment';
export * from './compile';
export * from './evaluate';
export * from './policy-store';
export * from './scoring';
export * from './route-frame';
export * from './routing';
