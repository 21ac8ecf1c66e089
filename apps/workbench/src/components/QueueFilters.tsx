import { lazy, Suspense, useEffect, useState } from 'react';
import { Button, type DateRange, Select, TextField } from '../ui';

// The date range picker (calendar, date maths) is a third of the design system's weight: it loads
// when the reviewer first reaches for it (or at once when the URL has dates); until then a
// look-alike button stands in.
const DateRangePicker = lazy(() => import('../ui/DateRangePicker').then((m) => ({ default: m.DateRangePicker })));

const show = (d: string) => (d ? `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}` : 'any');

/** What the picker shows, until it is there; any touch loads it. */
function DatesStandIn({ value, onWake }: { readonly value: DateRange; readonly onWake: () => void }) {
  return (
    <div className="ui-field ui-date-range filter-dates">
      <span className="ui-label" aria-hidden="true">
        Frame dates
      </span>
      <Button
        variant="plain"
        className="ui-input ui-date-group"
        aria-label={`Frame dates: ${show(value.from)} – ${show(value.to)}`}
        onPress={onWake}
        onHoverStart={onWake}
        onFocus={onWake}
      >
        {`${show(value.from)} – ${show(value.to)}`}
      </Button>
    </div>
  );
}

export interface QueueFiltersProps {
  readonly query: URLSearchParams;
  readonly onChange: (patch: Record<string, string | null>) => void;
}

/** Agent, media type and frame-date range, in one row; all kept in the URL. */
export function QueueFilters({ query, onChange }: QueueFiltersProps) {
  const agentParam = query.get('agent') ?? '';
  const [agent, setAgent] = useState(agentParam);
  useEffect(() => setAgent(agentParam), [agentParam]);
  const dates = { from: query.get('date_from') ?? '', to: query.get('date_to') ?? '' };
  const [picker, setPicker] = useState(Boolean(dates.from || dates.to));
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
      {picker ? (
        <Suspense fallback={<DatesStandIn value={dates} onWake={() => undefined} />}>
          <DateRangePicker
            className="filter-dates"
            label="Frame dates"
            value={dates}
            onChange={(r) => onChange({ date_from: r.from || null, date_to: r.to || null, selected: null })}
          />
        </Suspense>
      ) : (
        <DatesStandIn value={dates} onWake={() => setPicker(true)} />
      )}
    </form>
  );
}
