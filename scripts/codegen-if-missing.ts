import { generateIfMissing } from './lib/generated.js';

/** `npm run typecheck` and `npm run lint` on a fresh clone: the typed operations they read, generated first. */
generateIfMissing();
