// The theme the user picked (dark by default), kept in the page origin's storage by zustand's
// persist middleware so a reload or the next start keeps it, and applied to the page root as the
// theme's CSS custom properties (theme.ts) and its `color-scheme` (native controls, scroll bars).
import { useStore } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';
import { createStore } from 'zustand/vanilla';
import { THEMES, themeProperties, type Theme, type ThemeName } from './theme.ts';

interface ThemeState {
  theme: ThemeName;
  setTheme(theme: ThemeName): void;
}

/** The theme named by what the storage held, or undefined when it names none. */
export function storedTheme(stored: unknown): ThemeName | undefined {
  const theme = stored !== null && typeof stored === 'object' ? (stored as { theme?: unknown }).theme : undefined;
  return typeof theme === 'string' && Object.hasOwn(THEMES, theme) ? (theme as ThemeName) : undefined;
}

/** Storage key of the theme choice. */
const THEME_STORAGE_KEY = 'dqn-console-theme';

/** The theme choice; the header's button switches it, `useTheme` and `applyThemeTo` follow it. */
export const themeStore = createStore<ThemeState>()(
  persist((set) => ({ theme: 'dark', setTheme: (theme) => set({ theme }) }), {
    name: THEME_STORAGE_KEY,
    storage: createJSONStorage(() => localStorage),
    partialize: (s) => ({ theme: s.theme }),
    // A stored value that is not a theme's name (edited by hand, an older version) is ignored.
    merge: (stored, current) => {
      const theme = storedTheme(stored);
      return theme ? { ...current, theme } : current;
    },
  }),
);

/** The tokens of the theme in use; re-renders the caller when the user switches. */
export function useTheme(): Theme {
  return THEMES[useStore(themeStore, (s) => s.theme)];
}

/** Applies the theme in use to `root` (the page's <html>) now and on every switch; returns the disposer. */
export function applyThemeTo(root: HTMLElement): () => void {
  const apply = ({ theme }: ThemeState) => {
    for (const [k, v] of themeProperties(THEMES[theme])) root.style.setProperty(k, v);
    root.style.colorScheme = theme;
    root.dataset.theme = theme;
  };
  apply(themeStore.getState());
  return themeStore.subscribe(apply);
}
