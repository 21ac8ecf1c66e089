import type { ReactNode } from 'react';
import { Button as AriaButton, type ButtonProps as AriaButtonProps, ToggleButton } from 'react-aria-components';

/** `plain`: no look of its own (a whole card or row that is pressed). */
export type ButtonVariant = 'primary' | 'secondary' | 'danger' | 'success' | 'ghost' | 'plain';
export type ButtonSize = 'sm' | 'md' | 'lg';

export interface ButtonProps extends Omit<AriaButtonProps, 'className' | 'children'> {
  readonly variant?: ButtonVariant;
  readonly size?: ButtonSize;
  readonly className?: string;
  readonly children?: ReactNode;
}

const classes = (variant: ButtonVariant, size: ButtonSize, extra?: string) =>
  (variant === 'plain' ? ['ui-plain', extra] : ['ui-button', `ui-button--${variant}`, `ui-button--${size}`, extra])
    .filter(Boolean)
    .join(' ');

/** The one button of the workbench (React Aria: press events, focus ring only for the keyboard). */
export function Button({ variant = 'secondary', size = 'md', className, ...props }: ButtonProps) {
  return <AriaButton {...props} className={classes(variant, size, className)} />;
}

/** A button that stays pressed (aria-pressed): grid view, density, zones. */
export function Toggle({
  variant = 'secondary',
  size = 'md',
  className,
  isSelected,
  onChange,
  children,
  ...rest
}: {
  readonly variant?: ButtonVariant;
  readonly size?: ButtonSize;
  readonly className?: string;
  readonly isSelected: boolean;
  readonly onChange: (selected: boolean) => void;
  readonly children: ReactNode;
  readonly 'aria-label'?: string;
}) {
  return (
    <ToggleButton
      {...rest}
      isSelected={isSelected}
      onChange={onChange}
      className={classes(variant, size, `ui-toggle ${className ?? ''}`.trim())}
    >
      {children}
    </ToggleButton>
  );
}
