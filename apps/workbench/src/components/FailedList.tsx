import type { ChannelCount, FailedSubmission } from '../api/types';
import { Badge, Button, Checkbox, EmptyState, Select } from '../ui';
import { channelLabel } from './ChannelSwitcher';

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
      <Select
        label="Failure code"
        value={value.code}
        onChange={(code) => onChange({ ...value, code })}
        options={[{ id: '', label: 'Any code' }, ...codes.map((c) => ({ id: c, label: c }))]}
      />
      <Select
        label="Failed in channel"
        value={value.channel}
        onChange={(channel) => onChange({ ...value, channel })}
        options={[{ id: '', label: 'Any channel' }, ...channels.map((c) => ({ id: c.slug, label: channelLabel(c) }))]}
      />
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
  if (failed.length === 0)
    return <EmptyState title="No failed submissions">Nothing is waiting for a retry.</EmptyState>;
  return (
    <ul aria-label="Recently failed" className="failed">
      {failed.map((f) => {
        const name = f.title ?? f.id;
        return (
          <li key={f.id} aria-label={`${name} — ${f.failure_code ?? 'failed'}`}>
            <Checkbox
              aria-label={`Select ${name}`}
              isSelected={checked.has(f.id)}
              onChange={(_, range) => onCheck(f.id, range)}
            />
            <div className="failed-text">
              <strong>{name}</strong>
              <span className="meta-line">
                {f.channel_slug} · {f.agent_slug} · {f.media_type} ·{' '}
                <time dateTime={f.failed_at}>{new Date(f.failed_at).toLocaleString()}</time>
              </span>
              <span>
                <Badge tone="danger">{f.failure_code ?? 'failed'}</Badge> {f.failure_message}
              </span>
            </div>
            <Button size="sm" isDisabled={busy} onPress={() => onRetry([f.id])} aria-label={`Retry ${name}`}>
              Retry
            </Button>
          </li>
        );
      })}
    </ul>
  );
}
