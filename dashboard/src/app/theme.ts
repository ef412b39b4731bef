import { Alert, Anchor, Badge, createTheme, Modal, NavLink } from '@mantine/core';

/**
 * Colours chosen for contrast (axe's WCAG AA check in the browser tests): the primary shade is
 * dark enough for white text on buttons, and dimmed text is darker than Mantine's default.
 */
export const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: 8,
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  // Dialogs and menus appear without animation for users who ask for reduced motion (the browser
  // tests ask too, so their accessibility checks never see a half-faded dialog).
  respectReducedMotion: true,
  // Links inside text are underlined, not told apart by colour alone (axe: link-in-text-block).
  // The current screen's link is filled (white on indigo): the light variant's contrast is too low.
  components: { Anchor: Anchor.extend({ defaultProps: { underline: 'always' } }), NavLink: NavLink.extend({ defaultProps: { variant: 'filled' } }),
    // Filled badges with black or white text as the colour needs; alert titles in the text colour.
    Badge: Badge.extend({ defaultProps: { variant: 'filled', autoContrast: true }, styles: { label: { fontWeight: 700 } } }),
    Alert: Alert.extend({ styles: { title: { color: 'var(--mantine-color-text)' } } }),
    // A dialog's close button is an icon: it needs a name for screen readers (axe: button-name).
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
  },
  other: { sandboxColor: 'orange' },
});
