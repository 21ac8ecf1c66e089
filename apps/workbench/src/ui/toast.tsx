import { toast as sonner, Toaster as SonnerToaster } from 'sonner';
import { Button } from './Button';
import { useTheme } from './theme';

/** Where toasts appear (once, in the shell); sonner stacks, times and animates them. */
export function Toaster() {
  const [theme] = useTheme();
  return <SonnerToaster theme={theme} position="bottom-center" gap={8} />;
}

export interface ToastOptions {
  readonly id?: string;
  readonly durationMs?: number;
  /** An action beside the message, e.g. Undo (its key in `keys`). */
  readonly action?: { readonly label: string; readonly onAction: () => void; readonly keys?: string };
  readonly tone?: 'info' | 'error';
}

/** Shows a toast (replacing the one with the same id): our own card, so it reads as a status and uses our buttons. */
export function toast(message: string, options: ToastOptions = {}): string | number {
  const { action, tone = 'info' } = options;
  return sonner.custom(
    (id) => (
      <div className={`ui-toast ui-toast--${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
        <span className="ui-toast-message">{message}</span>
        {action && (
          <Button
            size="sm"
            variant="ghost"
            className="ui-toast-action"
            onPress={() => {
              sonner.dismiss(id);
              action.onAction();
            }}
          >
            {action.label}
          </Button>
        )}
        {action?.keys && <kbd className="ui-kbd">{action.keys}</kbd>}
      </div>
    ),
    {
      ...(options.id !== undefined ? { id: options.id } : {}),
      ...(options.durationMs !== undefined ? { duration: options.durationMs } : {}),
    },
  );
}

export function dismissToast(id?: string | number): void {
  sonner.dismiss(id);
}
