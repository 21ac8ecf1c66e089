import type { MediaType } from '../api/types';

/** "12 s", "4 min", "3 h", "2 d": how long ago, in the fewest words. */
export function relativeAge(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

/** The age of a moment, with the exact time on hover. */
export function RelativeTime({ iso, prefix = '' }: { readonly iso: string; readonly prefix?: string }) {
  return (
    <time dateTime={iso} title={new Date(iso).toLocaleString()}>
      {prefix}
      {relativeAge(iso)} ago
    </time>
  );
}

/** A small picture of the media type, named for screen readers. */
export function MediaIcon({ type }: { readonly type: MediaType }) {
  return type === 'video' ? (
    <svg className="media-icon" viewBox="0 0 16 16" width="14" height="14" role="img" aria-label="video">
      <rect x="1.5" y="3.5" width="9" height="9" rx="1.5" fill="none" stroke="currentColor" strokeWidth="1.4" />
      <path d="M10.5 7 L14.5 4.5 V11.5 L10.5 9 Z" fill="currentColor" />
    </svg>
  ) : (
    <svg className="media-icon" viewBox="0 0 16 16" width="14" height="14" role="img" aria-label="image">
      <rect x="1.5" y="2.5" width="13" height="11" rx="1.5" fill="none" stroke="currentColor" strokeWidth="1.4" />
      <circle cx="5.5" cy="6.5" r="1.3" fill="currentColor" />
      <path d="M2 12 L6 8.5 L9 11 L11 9 L14 12" fill="none" stroke="currentColor" strokeWidth="1.4" />
    </svg>
  );
}
