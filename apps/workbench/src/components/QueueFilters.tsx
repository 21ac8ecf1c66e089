export interface QueueFiltersProps {
  readonly query: URLSearchParams;
  readonly onChange: (patch: Record<string, string | null>) => void;
}

/** Agent, media type and frame-date range; all kept in the URL. */
export function QueueFilters({ query, onChange }: QueueFiltersProps) {
  const dateValue = (key: string) => {
    const v = query.get(key) ?? '';
    return /^\d{8}$/.test(v) ? `${v.slice(0, 4)}-${v.slice(4, 6)}-${v.slice(6, 8)}` : '';
  };
  const setDate = (key: string, value: string) =>
    onChange({ [key]: value ? value.replaceAll('-', '') : null, selected: null });
  return (
    <form className="filters" aria-label="Queue filters" onSubmit={(e) => e.preventDefault()}>
      <label>
        Agent
        <input
          type="text"
          placeholder="agent slug"
          defaultValue={query.get('agent') ?? ''}
          onBlur={(e) => onChange({ agent: e.target.value.trim() || null, selected: null })}
          onKeyDown={(e) =>
            e.key === 'Enter' && onChange({ agent: e.currentTarget.value.trim() || null, selected: null })
          }
        />
      </label>
      <label>
        Media type
        <select
          value={query.get('media_type') ?? ''}
          onChange={(e) => onChange({ media_type: e.target.value || null, selected: null })}
        >
          <option value="">Any</option>
          <option value="image">Image</option>
          <option value="video">Video</option>
        </select>
      </label>
      <label>
        From
        <input type="date" value={dateValue('date_from')} onChange={(e) => setDate('date_from', e.target.value)} />
      </label>
      <label>
        To
        <input type="date" value={dateValue('date_to')} onChange={(e) => setDate('date_to', e.target.value)} />
      </label>
    </form>
  );
}
