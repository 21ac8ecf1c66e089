import { type KeyboardEvent, type ReactNode, useRef } from 'react';
import {
  Autocomplete,
  Header,
  Input,
  ListBox,
  ListBoxItem,
  ListBoxSection,
  TextField,
  useFilter,
} from 'react-aria-components';

/**
 * A search field over a list of commands (React Aria Autocomplete): typing filters the list, the
 * arrows move through what is left (wrapping) while the focus stays in the field, Enter runs the
 * highlighted command. A command matches when every word typed is part of its keywords.
 */
export function CommandMenu({
  label,
  listLabel,
  search,
  onSearch,
  placeholder,
  empty,
  children,
}: {
  readonly label: string;
  readonly listLabel: string;
  readonly search: string;
  readonly onSearch: (search: string) => void;
  readonly placeholder?: string;
  readonly empty: string;
  readonly children: ReactNode;
}) {
  const { contains } = useFilter({ sensitivity: 'base' });
  const list = useRef<HTMLDivElement>(null);
  // Typing highlights the first match; pasted text does not (React Aria), yet Enter should still
  // run the first command left, e.g. "Open frame" for a pasted id.
  const runFirstOnEnter = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key !== 'Enter' || e.currentTarget.getAttribute('aria-activedescendant')) return;
    list.current?.querySelector<HTMLElement>('[role="option"][data-key]')?.click();
  };
  const matches = (keywords: string, typed: string) =>
    typed
      .split(/\s+/)
      .filter(Boolean)
      .every((word) => contains(keywords, word));
  return (
    <Autocomplete inputValue={search} onInputChange={onSearch} filter={matches}>
      <TextField aria-label={label} className="ui-command-field" autoFocus>
        <Input className="ui-input ui-command-input" placeholder={placeholder} onKeyDown={runFirstOnEnter} />
      </TextField>
      <ListBox
        ref={list}
        className="ui-command-list"
        aria-label={listLabel}
        shouldFocusWrap
        renderEmptyState={() => <p className="ui-command-empty">{empty}</p>}
      >
        {children}
      </ListBox>
    </Autocomplete>
  );
}

/** A titled group of commands; hidden while none of them matches. */
export function CommandGroup({ heading, children }: { readonly heading: string; readonly children: ReactNode }) {
  return (
    <ListBoxSection className="ui-command-group">
      <Header className="ui-command-heading">{heading}</Header>
      {children}
    </ListBoxSection>
  );
}

/** One command: `keywords` are what typing matches against (the label's words and more). */
export function CommandItem({
  id,
  keywords,
  onAction,
  children,
}: {
  readonly id: string;
  readonly keywords: string;
  readonly onAction: () => void;
  readonly children: ReactNode;
}) {
  return (
    <ListBoxItem id={id} textValue={keywords} onAction={onAction} className="ui-command-item">
      {children}
    </ListBoxItem>
  );
}
