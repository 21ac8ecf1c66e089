import type { ReactNode } from 'react';
import { Tab, TabList, TabPanel, Tabs as AriaTabs } from 'react-aria-components';

export type Tone = 'neutral' | 'accent' | 'success' | 'danger' | 'warning';

/** A short status word or count. */
export function Badge({
  tone = 'neutral',
  children,
  title,
  className,
}: {
  readonly tone?: Tone;
  readonly children: ReactNode;
  readonly title?: string;
  readonly className?: string;
}) {
  return (
    <span className={['ui-badge', `ui-badge--${tone}`, className].filter(Boolean).join(' ')} title={title}>
      {children}
    </span>
  );
}

/** A keyboard key, as a hint beside the action it runs. */
export function Kbd({ children }: { readonly children: ReactNode }) {
  return <kbd className="ui-kbd">{children}</kbd>;
}

/** A grey placeholder of the content's shape while it loads. */
export function Skeleton({ lines = 3, className }: { readonly lines?: number; readonly className?: string }) {
  return (
    // A name needs a role that takes one (axe: aria-label on a plain div is prohibited).
    <div
      className={['ui-skeleton', className].filter(Boolean).join(' ')}
      role="progressbar"
      aria-busy="true"
      aria-label="Loading"
    >
      {Array.from({ length: lines }, (_, i) => (
        <span key={i} className="ui-skeleton-line" style={{ width: `${90 - ((i * 17) % 40)}%` }} />
      ))}
    </div>
  );
}

/** What an empty place means, and what to do about it. */
export function EmptyState({
  title,
  children,
  action,
}: {
  readonly title: string;
  readonly children?: ReactNode;
  readonly action?: ReactNode;
}) {
  return (
    <div className="ui-empty">
      <svg viewBox="0 0 48 48" width="40" height="40" aria-hidden="true">
        <rect x="6" y="10" width="36" height="28" rx="4" fill="none" stroke="currentColor" strokeWidth="2" />
        <circle cx="18" cy="21" r="3.5" fill="currentColor" />
        <polyline points="8,36 20,26 28,32 34,27 42,34" fill="none" stroke="currentColor" strokeWidth="2" />
      </svg>
      <p className="ui-empty-title">{title}</p>
      {children && <p className="ui-empty-text">{children}</p>}
      {action}
    </div>
  );
}

/** Tabs with arrow-key movement (React Aria); each tab's panel is rendered when it is chosen. */
export function Tabs({
  label,
  tabs,
  selected,
  onSelect,
}: {
  readonly label: string;
  readonly tabs: readonly { id: string; title: string; content: ReactNode }[];
  readonly selected?: string;
  readonly onSelect?: (id: string) => void;
}) {
  return (
    <AriaTabs
      className="ui-tabs"
      {...(selected ? { selectedKey: selected } : {})}
      {...(onSelect ? { onSelectionChange: (k) => onSelect(String(k)) } : {})}
    >
      <TabList className="ui-tablist" aria-label={label}>
        {tabs.map((t) => (
          <Tab key={t.id} id={t.id} className="ui-tab">
            {t.title}
          </Tab>
        ))}
      </TabList>
      {tabs.map((t) => (
        <TabPanel key={t.id} id={t.id} className="ui-tabpanel">
          {t.content}
        </TabPanel>
      ))}
    </AriaTabs>
  );
}
