import type { ReactElement, ReactNode } from 'react';
import {
  Dialog as AriaDialog,
  DialogTrigger,
  Heading,
  Modal,
  ModalOverlay,
  OverlayArrow,
  Popover as AriaPopover,
  Tooltip as AriaTooltip,
  TooltipTrigger,
} from 'react-aria-components';
import { Button } from './Button';

export { DialogTrigger };

/** A modal dialog with a title and a Close button; Escape and a click outside close it, focus is trapped and restored. */
export function Dialog({
  title,
  isOpen,
  onOpenChange,
  children,
  className,
  hideTitle,
}: {
  readonly title: string;
  readonly isOpen: boolean;
  readonly onOpenChange: (open: boolean) => void;
  readonly children: ReactNode;
  readonly className?: string;
  readonly hideTitle?: boolean;
}) {
  return (
    <ModalOverlay className="ui-overlay" isOpen={isOpen} onOpenChange={onOpenChange} isDismissable>
      <Modal className={['ui-modal', className].filter(Boolean).join(' ')}>
        <AriaDialog className="ui-dialog" aria-label={title}>
          {({ close }) => (
            <>
              <header className="ui-dialog-header">
                <Heading slot="title" className={hideTitle ? 'ui-visually-hidden' : 'ui-dialog-title'}>
                  {title}
                </Heading>
                <Button variant="ghost" size="sm" onPress={close}>
                  Close
                </Button>
              </header>
              {children}
            </>
          )}
        </AriaDialog>
      </Modal>
    </ModalOverlay>
  );
}

/** A small non-modal panel anchored to its trigger (the first child of DialogTrigger). */
export function PopoverDialog({
  label,
  children,
  className,
  placement = 'bottom start',
}: {
  readonly label: string;
  readonly children: ReactNode | ((close: () => void) => ReactNode);
  readonly className?: string;
  readonly placement?: 'bottom start' | 'top start' | 'bottom end' | 'top end';
}) {
  return (
    <AriaPopover className="ui-popover" placement={placement} offset={6}>
      <AriaDialog className={['ui-popover-dialog', className].filter(Boolean).join(' ')} aria-label={label}>
        {({ close }) => (typeof children === 'function' ? children(close) : children)}
      </AriaDialog>
    </AriaPopover>
  );
}

/** A hint shown on hover and keyboard focus of its trigger (which must be focusable). */
export function Tooltip({ content, children }: { readonly content: ReactNode; readonly children: ReactElement }) {
  return (
    <TooltipTrigger delay={400} closeDelay={0}>
      {children}
      <AriaTooltip className="ui-tooltip" offset={6}>
        <OverlayArrow className="ui-tooltip-arrow">
          <svg width={8} height={8} viewBox="0 0 8 8" aria-hidden="true">
            <path d="M0 0 L4 4 L8 0" />
          </svg>
        </OverlayArrow>
        {content}
      </AriaTooltip>
    </TooltipTrigger>
  );
}
