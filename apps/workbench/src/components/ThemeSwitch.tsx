import { Select, type ThemeChoice, useTheme } from '../ui';

const CHOICES = [
  { id: 'system', label: 'System theme' },
  { id: 'light', label: 'Light' },
  { id: 'dark', label: 'Dark' },
];

/** Light, dark, or the system's (prefers-color-scheme); kept in this browser. */
export function ThemeSwitch() {
  const [theme, setTheme] = useTheme();
  return (
    <Select
      className="theme-switch"
      label="Theme"
      hideLabel
      value={theme}
      options={CHOICES}
      onChange={(v) => setTheme(v as ThemeChoice)}
    />
  );
}
