/** The file name a logo is served under: the name in lower case, words joined by `-`. */
export function logoFileOf(name: string): string {
  return `${name.toLowerCase().replaceAll(/[^a-z0-9]+/g, '-')}.png`;
}

/** The placeholder's file, as the platform names it: every merchant without a logo points here. */
export const PLACEHOLDER_LOGO_FILE = 'default.png';
