import { useEffect, useState } from 'react';
import { DateRangePicker, Select, TextField } from '../ui';

export interface QueueFiltersProps {
  readonly query: URLSearchParams;
  readonly onChange: (patch: Record<string, string | null>) => void;
}

/** Agent, media type and frame-date range, in one row; all kept in the URL. */
export function QueueFilters({ query, onChange }: QueueFiltersProps) {
  const agentParam = query.get('agent') ?? '';
  const [agent, setAgent] = useState(agentParam);
  useEffect(() => setAgent(agentParam), [agentParam]);
  const commitAgent = () => agent.trim() !== agentParam && onChange({ agent: agent.trim() || null, selected: null });
  return (
    <form className="filters" aria-label="Queue filters" onSubmit={(e) => e.preventDefault()}>
      <TextField
        className="filter-agent"
        label="Agent"
        placeholder="agent slug"
        value={agent}
        onChange={setAgent}
        onBlur={commitAgent}
        onEnter={commitAgent}
      />
      <Select
        className="filter-media"
        label="Media type"
        value={query.get('media_type') ?? ''}
        onChange={(v) => onChange({ media_type: v || null, selected: null })}
        options={[
          { id: '', label: 'Any' },
          { id: 'image', label: 'Image' },
          { id: 'video', label: 'Video' },
        ]}
      />
      <DateRangePicker
        className="filter-dates"
        label="Frame dates"
        value={{ from: query.get('date_from') ?? '', to: query.get('date_to') ?? '' }}
        onChange={(r) => onChange({ date_from: r.from || null, date_to: r.to || null, selected: null })}
      />
    </form>
  );
}
