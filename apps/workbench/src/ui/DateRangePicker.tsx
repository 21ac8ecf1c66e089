import { parseDate } from '@internationalized/date';
import {
  Button as AriaButton,
  CalendarCell,
  CalendarGrid,
  DateInput,
  DateRangePicker as AriaDateRangePicker,
  DateSegment,
  Dialog,
  Group,
  Heading,
  Label,
  Popover,
  RangeCalendar,
} from 'react-aria-components';

/** Dates as the API writes them: `YYYYMMDD`, '' for none. */
export interface DateRange {
  readonly from: string;
  readonly to: string;
}

const toIso = (d: string) => `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}`;
const parse = (d: string) => (/^\d{8}$/.test(d) ? parseDate(toIso(d)) : null);
const compact = (d: { toString(): string }) => d.toString().replaceAll('-', '');

/** A from–to date range in one control: typed segments, or picked on a calendar (React Aria). */
export function DateRangePicker({
  label,
  value,
  onChange,
  className,
}: {
  readonly label: string;
  readonly value: DateRange;
  readonly onChange: (value: DateRange) => void;
  readonly className?: string;
}) {
  const start = parse(value.from);
  const end = parse(value.to);
  const empty = !start && !end;
  return (
    <AriaDateRangePicker
      className={['ui-field ui-date-range', className].filter(Boolean).join(' ')}
      value={start && end ? { start, end } : null}
      onChange={(range) =>
        onChange(range ? { from: compact(range.start), to: compact(range.end) } : { from: '', to: '' })
      }
      granularity="day"
    >
      <Label className="ui-label">{label}</Label>
      <Group className="ui-input ui-date-group">
        <DateInput slot="start" className="ui-date-input">
          {(segment) => <DateSegment segment={segment} className="ui-date-segment" />}
        </DateInput>
        <span aria-hidden="true" className="ui-date-dash">
          –
        </span>
        <DateInput slot="end" className="ui-date-input">
          {(segment) => <DateSegment segment={segment} className="ui-date-segment" />}
        </DateInput>
        {!empty && (
          <AriaButton
            className="ui-icon-button"
            aria-label={`Clear ${label}`}
            onPress={() => onChange({ from: '', to: '' })}
          >
            ×
          </AriaButton>
        )}
        <AriaButton className="ui-icon-button" aria-label={`Calendar for ${label}`}>
          <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
            <rect x="2" y="3" width="12" height="11" rx="1.5" fill="none" stroke="currentColor" strokeWidth="1.4" />
            <line x1="2" y1="6.5" x2="14" y2="6.5" stroke="currentColor" strokeWidth="1.4" />
          </svg>
        </AriaButton>
      </Group>
      <Popover className="ui-popover" offset={4}>
        <Dialog className="ui-calendar-dialog">
          <RangeCalendar className="ui-calendar">
            <header className="ui-calendar-header">
              <AriaButton slot="previous" className="ui-icon-button" aria-label="Previous month">
                ‹
              </AriaButton>
              <Heading className="ui-calendar-heading" />
              <AriaButton slot="next" className="ui-icon-button" aria-label="Next month">
                ›
              </AriaButton>
            </header>
            <CalendarGrid>{(date) => <CalendarCell date={date} className="ui-calendar-cell" />}</CalendarGrid>
          </RangeCalendar>
        </Dialog>
      </Popover>
    </AriaDateRangePicker>
  );
}
