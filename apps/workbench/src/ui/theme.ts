import { useCallback, useSyncExternalStore } from 'react';

/** The reviewer's choice: follow the system (prefers-color-scheme), or always light or dark. */
export type ThemeChoice = 'system' | 'light' | 'dark';

export const THEME_KEY = 'framedesk.theme';
const listeners = new Set<() => void>();

function read(): ThemeChoice {
  try {
    const v = window.localStorage.getItem(THEME_KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

/** Puts the stored choice on <html data-theme> (tokens.css reads it); call once before the first render. */
export function applyStoredTheme(): void {
  const choice = read();
  if (choice === 'system') delete document.documentElement.dataset['theme'];
  else document.documentElement.dataset['theme'] = choice;
}

export function setTheme(choice: ThemeChoice): void {
  try {
    if (choice === 'system') window.localStorage.removeItem(THEME_KEY);
    else window.localStorage.setItem(THEME_KEY, choice);
  } catch {
    // private mode: the choice lasts for this page only
  }
  applyStoredTheme();
  listeners.forEach((l) => l());
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The theme choice, kept in localStorage, and a setter. */
export function useTheme(): readonly [ThemeChoice, (choice: ThemeChoice) => void] {
  const choice = useSyncExternalStore(subscribe, read);
  return [choice, useCallback((c: ThemeChoice) => setTheme(c), [])] as const;
}
