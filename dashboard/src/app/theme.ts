import { createTheme } from '@mantine/core';

/**
 * Colours chosen for contrast (axe's WCAG AA check in the browser tests): the primary shade is
 * dark enough for white text on buttons, and dimmed text is darker than Mantine's default.
 */
export const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: 8,
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  colors: {},
  other: { sandboxColor: 'orange' },
});
