import { type ReactNode, useRef, useState } from 'react';
import {
  Button as AriaButton,
  Checkbox as AriaCheckbox,
  ComboBox as AriaComboBox,
  FieldError,
  Input,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Select as AriaSelect,
  SelectValue,
  Text,
  TextArea,
  TextField as AriaTextField,
  type Key,
} from 'react-aria-components';

export interface TextFieldProps {
  readonly label: string;
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly type?: 'text' | 'email' | 'password' | 'search' | 'url';
  readonly multiline?: boolean;
  readonly description?: string;
  readonly placeholder?: string;
  readonly autoComplete?: string;
  readonly isRequired?: boolean;
  readonly isReadOnly?: boolean;
  readonly isInvalid?: boolean;
  readonly errorMessage?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly autoFocus?: boolean;
  readonly className?: string;
  readonly onBlur?: () => void;
  readonly onEnter?: () => void;
  readonly onFocus?: (input: HTMLInputElement | HTMLTextAreaElement) => void;
}

/** A labelled text input (or text area), with a hint and an error in words. */
export function TextField({ label, multiline, description, errorMessage, className, onEnter, ...p }: TextFieldProps) {
  return (
    <AriaTextField
      className={['ui-field', className].filter(Boolean).join(' ')}
      value={p.value}
      onChange={p.onChange}
      type={p.type ?? 'text'}
      {...(p.autoComplete ? { autoComplete: p.autoComplete } : {})}
      isRequired={p.isRequired ?? false}
      isReadOnly={p.isReadOnly ?? false}
      isInvalid={p.isInvalid ?? false}
      {...(p.minLength !== undefined ? { minLength: p.minLength } : {})}
      {...(p.maxLength !== undefined ? { maxLength: p.maxLength } : {})}
      autoFocus={p.autoFocus ?? false}
      {...(p.onBlur ? { onBlur: p.onBlur } : {})}
      {...(p.onFocus ? { onFocus: (e) => p.onFocus!(e.target as HTMLInputElement) } : {})}
      {...(onEnter ? { onKeyDown: (e) => e.key === 'Enter' && onEnter() } : {})}
    >
      <Label className="ui-label">{label}</Label>
      {multiline ? (
        <TextArea className="ui-input ui-textarea" placeholder={p.placeholder} />
      ) : (
        <Input className="ui-input" placeholder={p.placeholder} />
      )}
      {description && (
        <Text slot="description" className="ui-description">
          {description}
        </Text>
      )}
      <FieldError className="ui-error">{errorMessage}</FieldError>
    </AriaTextField>
  );
}

export interface Option {
  readonly id: string;
  readonly label: string;
}

// React Aria keys cannot be empty: "any" (the empty value) travels as this key.
const EMPTY = '__empty__';
const toKey = (v: string) => (v === '' ? EMPTY : v);
const fromKey = (k: Key | null) => (k === null || k === EMPTY ? '' : String(k));

export interface SelectProps {
  readonly label: string;
  readonly value: string;
  readonly options: readonly Option[];
  readonly onChange: (value: string) => void;
  readonly placeholder?: string;
  readonly isDisabled?: boolean;
  readonly autoFocus?: boolean;
  readonly className?: string;
  /** Show the label only to assistive technology. */
  readonly hideLabel?: boolean;
}

/** A labelled pick-one list (React Aria Select: listbox in a popover, typeahead, arrows). */
export function Select({ label, value, options, onChange, placeholder, hideLabel, ...p }: SelectProps) {
  return (
    <AriaSelect
      className={['ui-field', p.className].filter(Boolean).join(' ')}
      selectedKey={value === '' && !options.some((o) => o.id === '') ? null : toKey(value)}
      onSelectionChange={(k) => onChange(fromKey(k))}
      isDisabled={p.isDisabled ?? false}
      autoFocus={p.autoFocus ?? false}
      placeholder={placeholder ?? 'Choose…'}
    >
      <Label className={hideLabel ? 'ui-label ui-visually-hidden' : 'ui-label'}>{label}</Label>
      <AriaButton className="ui-input ui-select-trigger">
        <SelectValue className="ui-select-value" />
        <Chevron />
      </AriaButton>
      <Popover className="ui-popover" offset={4}>
        <ListBox className="ui-listbox" items={options.map((o) => ({ ...o, key: toKey(o.id) }))}>
          {(o) => (
            <ListBoxItem id={o.key} textValue={o.label} className="ui-option">
              {o.label}
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </AriaSelect>
  );
}

export interface ComboBoxProps {
  readonly label: string;
  readonly options: readonly Option[];
  readonly value: string | null;
  readonly onChange: (value: string) => void;
  readonly placeholder?: string;
  readonly className?: string;
  readonly listLabel?: string;
  readonly hideLabel?: boolean;
}

/** Type to filter, arrows and Enter to pick (React Aria ComboBox); the input clears after a pick. */
export function ComboBox({
  label,
  options,
  value,
  onChange,
  placeholder,
  className,
  listLabel,
  hideLabel,
}: ComboBoxProps) {
  const [text, setText] = useState('');
  return (
    <AriaComboBox
      className={['ui-field', className].filter(Boolean).join(' ')}
      aria-label={label}
      selectedKey={null}
      inputValue={text}
      onInputChange={setText}
      menuTrigger="focus"
      allowsEmptyCollection
      onSelectionChange={(k) => {
        if (k === null) return;
        setText('');
        onChange(fromKey(k));
        // After React Aria has put the focus back in the input: the single-key shortcuts work again.
        setTimeout(() => (document.activeElement as HTMLElement | null)?.blur(), 0);
      }}
      defaultItems={options.map((o) => ({ ...o, key: toKey(o.id) }))}
      data-current={value ?? ''}
    >
      {!hideLabel && <Label className="ui-label">{label}</Label>}
      <div className="ui-combobox-control">
        <Input className="ui-input" placeholder={placeholder} />
        <AriaButton className="ui-combobox-button" aria-label={`Show ${listLabel ?? label}`}>
          <Chevron />
        </AriaButton>
      </div>
      <Popover className="ui-popover" offset={4}>
        <ListBox
          className="ui-listbox"
          aria-label={listLabel ?? label}
          renderEmptyState={() => <p className="ui-option-empty">No match</p>}
        >
          {(o: Option & { key: string }) => (
            <ListBoxItem id={o.key} textValue={o.label} className="ui-option">
              {o.label}
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </AriaComboBox>
  );
}

export interface CheckboxProps {
  readonly isSelected: boolean;
  /** `range`: shift was held (tick the range from the last ticked one). */
  readonly onChange: (selected: boolean, range: boolean) => void;
  readonly children?: ReactNode;
  readonly 'aria-label'?: string;
  readonly className?: string;
  readonly isDisabled?: boolean;
}

/** A styled checkbox (a real input inside, so forms, labels and screen readers work as usual). */
export function Checkbox({ isSelected, onChange, children, className, isDisabled, ...rest }: CheckboxProps) {
  const shift = useRef(false);
  return (
    <AriaCheckbox
      {...rest}
      isSelected={isSelected}
      isDisabled={isDisabled ?? false}
      className={['ui-checkbox', className].filter(Boolean).join(' ')}
      onChange={(selected) => onChange(selected, shift.current)}
      onClickCapture={(e) => {
        shift.current = e.shiftKey;
      }}
    >
      <span className="ui-checkbox-box" aria-hidden="true">
        <svg viewBox="0 0 16 16" width="12" height="12">
          <polyline points="3,8.5 6.5,12 13,4.5" fill="none" stroke="currentColor" strokeWidth="2.4" />
        </svg>
      </span>
      {children}
    </AriaCheckbox>
  );
}

export function Chevron() {
  return (
    <svg className="ui-chevron" viewBox="0 0 16 16" width="12" height="12" aria-hidden="true">
      <polyline points="4,6 8,10 12,6" fill="none" stroke="currentColor" strokeWidth="1.8" />
    </svg>
  );
}
