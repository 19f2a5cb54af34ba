import { writeFileSync } from 'node:fs';
import { renderEnvExample, renderSettingsReference } from './settings-docs-render.js';

// `npm run settings:docs`: rewrites the settings reference and .env.example from the settings table.
writeFileSync('docs/reference/settings.md', renderSettingsReference());
writeFileSync('.env.example', renderEnvExample());
process.stdout.write('wrote docs/reference/settings.md and .env.example from src/config/settings/\n');
