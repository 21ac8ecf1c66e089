import type { ChannelCount, FailedSubmission } from '../api/types';

export interface FailedFilterValue {
  readonly code: string;
  readonly channel: string;
}

/** Failure code and channel of the failed list (kept in the page's URL). */
export function FailedFilters({
  value,
  codes,
  channels,
  onChange,
}: {
  readonly value: FailedFilterValue;
  readonly codes: readonly string[];
  readonly channels: readonly ChannelCount[];
  readonly onChange: (value: FailedFilterValue) => void;
}) {
  return (
    <form className="filters" aria-label="Failed filters" onSubmit={(e) => e.preventDefault()}>
      <label>
        Failure code
        <select value={value.code} onChange={(e) => onChange({ ...value, code: e.target.value })}>
          <option value="">Any code</option>
          {codes.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </label>
      <label>
        Failed in channel
        <select value={value.channel} onChange={(e) => onChange({ ...value, channel: e.target.value })}>
          <option value="">Any channel</option>
          {channels.map((c) => (
            <option key={c.slug} value={c.slug}>
              {c.name}
            </option>
          ))}
        </select>
      </label>
    </form>
  );
}

/** The failed frames, each with its reason, a checkbox for "Retry selected" and its own Retry. */
export function FailedList({
  failed,
  checked,
  onCheck,
  onRetry,
  busy,
}: {
  readonly failed: readonly FailedSubmission[];
  readonly checked: ReadonlySet<string>;
  readonly onCheck: (id: string, range: boolean) => void;
  readonly onRetry: (ids: readonly string[]) => void;
  readonly busy: boolean;
}) {
  if (failed.length === 0) return <p className="empty">No failed submissions.</p>;
  return (
    <ul aria-label="Recently failed" className="failed">
      {failed.map((f) => {
        const name = f.title ?? f.id;
        return (
          <li key={f.id} aria-label={`${name} — ${f.failure_code ?? 'failed'}`}>
            <input
              type="checkbox"
              aria-label={`Select ${name}`}
              checked={checked.has(f.id)}
              onChange={(e) => onCheck(f.id, (e.nativeEvent as MouseEvent).shiftKey === true)}
            />{' '}
            <strong>{name}</strong> · {f.channel_slug} · {f.agent_slug} · {f.media_type}
            <br />
            <code>{f.failure_code}</code> {f.failure_message} · {new Date(f.failed_at).toLocaleString()}{' '}
            <button type="button" disabled={busy} onClick={() => onRetry([f.id])} aria-label={`Retry ${name}`}>
              Retry
            </button>
          </li>
        );
      })}
    </ul>
  );
}
