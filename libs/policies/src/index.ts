export * from './policy-file';
export * from './cel-environment';
export * from './compile';
export * from './evaluate';
export * from './policy-store';
