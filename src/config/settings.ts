import type { SettingGroup, ValueOf } from './setting-types.js';
import { ACCESS_TOKEN_SETTINGS } from './settings/access-token-settings.js';
import { CONSUMER_INFO_SETTINGS } from './settings/consumer-info-settings.js';
import { ENRICHMENT_SETTINGS } from './settings/enrichment-settings.js';
import { GRAPHQL_SETTINGS } from './settings/graphql-settings.js';
import { OBSERVABILITY_SETTINGS } from './settings/observability-settings.js';
import { PAYMENT_SETTINGS } from './settings/payment-settings.js';
import { PLATFORM_SETTINGS } from './settings/platform-settings.js';
import { REALTIME_SETTINGS } from './settings/realtime-settings.js';
import { SERVER_SETTINGS } from './settings/server-settings.js';
import { SESSION_SETTINGS } from './settings/session-settings.js';
import { SHARED_STATE_SETTINGS } from './settings/shared-state-settings.js';
import { USER_DATA_SETTINGS } from './settings/user-data-settings.js';

/**
 * Every setting the gateway reads, grouped by feature, in the order of the settings reference and
 * .env.example (both generated from it: `npm run settings:docs`). Adding a setting is one entry in
 * its group's file; the parser, the reference and .env.example follow from it.
 */
export const SETTING_GROUPS = [
  SERVER_SETTINGS,
  PLATFORM_SETTINGS,
  ENRICHMENT_SETTINGS,
  GRAPHQL_SETTINGS,
  SESSION_SETTINGS,
  ACCESS_TOKEN_SETTINGS,
  CONSUMER_INFO_SETTINGS,
  PAYMENT_SETTINGS,
  REALTIME_SETTINGS,
  SHARED_STATE_SETTINGS,
  USER_DATA_SETTINGS,
  OBSERVABILITY_SETTINGS,
] as const satisfies readonly SettingGroup[];

type AnySetting = (typeof SETTING_GROUPS)[number]['settings'][number];

export type SettingName = AnySetting['name'];

/** The parsed value of every setting by name: its default when unset, undefined where it has none. */
export type SettingValues = { [S in AnySetting as S['name']]: ValueOf<S> };

export const SETTINGS: ReadonlyArray<AnySetting> = SETTING_GROUPS.flatMap(
  (group): readonly AnySetting[] => group.settings,
);
