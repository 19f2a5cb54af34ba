import { tokenKeysSetting } from './redis.js';

/** A configuration an operator would run against the live platform, with everything this gateway can do. */
export const PRODUCTION_SETTINGS = {
  PUBLIC_URL: 'https://money.example.co.nz',
  CORE_API_URL: 'https://api.platform.example',
  ENRICHMENT_API_URL: 'https://genie.platform.example',
  OAUTH_AUTHORIZE_URL: 'https://oauth.platform.example',
  APP_TOKEN: 'app_token_production',
  APP_SECRET: 'production-app-secret',
  ENRICHMENT_API_KEY: 'genie_token_production',
  SESSION_SECRET: 'a-production-session-secret-of-enough-length',
  REDIS_URL: 'redis://127.0.0.1:6379',
  TOKEN_ENCRYPTION_KEYS: tokenKeysSetting(),
  PRIVACY_NOTICE_URL: 'https://money.example.co.nz/privacy',
  PENTEST_DATE: '2026-05-01',
  APP_NAME: 'Kiwi Money',
  OIDC_ISSUER: 'https://login.money.example.co.nz',
  OIDC_CLIENT_ID: 'gateway',
  OIDC_CLIENT_SECRET: 'production-oidc-client-secret',
};
