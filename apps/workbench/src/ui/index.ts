// The workbench's design system: tokens (tokens.css) and the components every screen is built from.
import './tokens.css';
import './ui.css';

export { Button, Toggle, type ButtonSize, type ButtonVariant } from './Button';
export { Checkbox, Chevron, ComboBox, Select, TextField, type Option } from './fields';
// DateRangePicker and CommandMenu are imported from their files directly, lazily (the date
// picker is heavy; the command menu lives in the palette's chunk).
export type { DateRange } from './DateRangePicker';
export { Dialog, DialogTrigger, PopoverDialog, Tooltip } from './overlays';
export { Badge, EmptyState, Kbd, Skeleton, Tabs, type Tone } from './display';
export { dismissToast, toast, Toaster } from './toast';
export { applyStoredTheme, setTheme, useTheme, type ThemeChoice } from './theme';
